/**
 * restateRunCode across machines: the service endpoint runs on "host A", a network namespace with an
 * address of its own on a veth link (hosts.ts), and is killed with SIGKILL halfway through 40
 * effectful calls; the deployment is moved to an endpoint on "host B", another namespace, and Restate's
 * retry finishes the run there with every effect once. The Restate server stays on this machine (it
 * listens on 127.0.0.1 and reaches each endpoint over its link). Needs root and `ip netns`; with
 * CORDON_REQUIRE_RESTATE=1 (make test, CI) their absence fails the suite, elsewhere it does not run.
 */

import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { FORTY_CALLS_VALUE } from "./helpers.js";
import {
  type Host,
  makeHosts,
  namespacesProblem,
  RESTATE_HOSTS,
  removeHosts,
  removeStaleHosts,
} from "./hosts.js";
import { type Endpoint, lines, RestateService, restateServer } from "./restate-harness.js";

const ENDPOINT = join(import.meta.dirname, "fixtures", "restate-code-endpoint.ts");
const REQUIRED = process.env.CORDON_REQUIRE_RESTATE === "1";
const namespaces = namespacesProblem();

let service: RestateService | undefined;
let hosts: Host[] = [];
let directory: string | undefined;

describe.runIf(REQUIRED || namespaces === undefined)("restateRunCode across hosts", () => {
  beforeAll(async () => {
    if (namespaces !== undefined) {
      throw new Error(
        `CORDON_REQUIRE_RESTATE=1, but this test runs endpoints in network namespaces, and cannot here: ${namespaces}. Run it as root on Linux with iproute2 (ip netns), as make test and CI do.`,
      );
    }
    removeStaleHosts(RESTATE_HOSTS);
    hosts = makeHosts(RESTATE_HOSTS, ["a", "b"]);
    service = new RestateService(await restateServer(), `CordonHostsTest_${randomUUID().slice(0, 8)}`);
    directory = await mkdtemp(join(tmpdir(), "cordon-restate-hosts-"));
  }, 200_000);

  afterAll(async () => {
    await service?.cleanUp();
    removeHosts(hosts);
    if (directory !== undefined) await rm(directory, { recursive: true, force: true });
  });

  /** An endpoint on `host`: started in its namespace, listening on its address alone. */
  const endpointOn = (host: Host, tag: string): Promise<Endpoint> =>
    service!.startEndpoint(ENDPOINT, [tag, host.address], {
      host: host.address,
      prefix: ["ip", "netns", "exec", host.namespace],
      nodeArgs: ["--no-node-snapshot"],
    });

  it("a run started on host A, whose endpoint was killed there, is finished on host B with every effect once", async () => {
    const [a, b] = hosts as [Host, Host];
    const file = join(directory!, "forty");
    const onA = await endpointOn(a, "A");
    expect(onA.url).toMatch(/^http:\/\/10\.214\./);
    await service!.serveFrom(onA.url);
    const invocation = await service!.send("forty", { file, delayMs: 30 });
    await vi.waitFor(async () => expect((await lines(file)).length).toBeGreaterThanOrEqual(12), {
      timeout: 30_000,
      interval: 10,
    });
    onA.child.kill("SIGKILL");
    expect((await lines(file)).length).toBeLessThan(40);
    await service!.serveFrom((await endpointOn(b, "B")).url);

    const answer = await service!.attach<{ status: string; value: unknown; runId: string; tag: string }>(
      invocation,
    );
    expect(answer).toMatchObject({ status: "ok", value: FORTY_CALLS_VALUE, tag: "B" });
    const effects = await lines(file);
    expect([...effects].sort()).toEqual(Array.from({ length: 40 }, (_, i) => `${answer.runId}:${i}`).sort());
    const calls = await lines(`${file}.calls`);
    expect(calls.some((line) => line.startsWith("A "))).toBe(true);
    expect(calls.some((line) => line.startsWith("B "))).toBe(true);
  }, 180_000);
});
