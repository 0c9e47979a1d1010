/**
 * A fleet of workers on one Postgres journal, each worker on a "host" of its own: a Linux network
 * namespace with its own address, linked to this machine by a veth pair (hosts.ts). A worker on host A
 * makes 40 effectful calls and is killed with SIGKILL halfway; a worker on host B, which knows no run id,
 * finds the run in `cm.incompleteRuns()`, recovers it and finishes it: every effect once, the run's
 * value right. Also: two recoverers on two hosts at once (one wins), and the call in flight not
 * idempotent (the recovery pauses with unknown-outcome). The server keeps listening on 127.0.0.1 only:
 * each host reaches it through a relay on this machine's end of its link. Needs root and `ip netns`;
 * with CORDON_REQUIRE_POSTGRES=1 (make test, CI) their absence fails the suite.
 */

import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FORTY_CALLS_VALUE } from "./helpers.js";
import {
  FLEET_HOSTS,
  type Host,
  makeHosts,
  namespaceExists,
  namespacesProblem,
  type Relay,
  relay,
  removeHosts,
  removeStaleHosts,
} from "./hosts.js";
import {
  claimAtOnce,
  decideUnknownOutcomes,
  durableWorker,
  keys,
  killAt,
  linesOf,
  range,
  type Worker,
} from "./kill-and-recover.js";
import {
  dropTables,
  freshTable,
  newPool,
  POSTGRES_SUITES,
  POSTGRES_URL,
  requirePostgres,
} from "./postgres-server.js";

const REQUIRED = process.env.CORDON_REQUIRE_POSTGRES === "1";
const namespaces = namespacesProblem();

/** Required, or both the server and namespaces are there (elsewhere, as the Postgres suites, it does not run). */
const FLEET = REQUIRED || (POSTGRES_SUITES && namespaces === undefined);

const root = mkdtempSync(join(tmpdir(), "cordon-fleet-"));
const children = new Set<ChildProcess>();
const tables: string[] = [];
let hosts: Record<"a" | "b" | "c", Host & { relay: Relay; url: string }>;
let made = 0;

beforeAll(async () => {
  requirePostgres();
  if (namespaces !== undefined) {
    throw new Error(
      `The fleet test runs workers in network namespaces, and cannot here: ${namespaces}. Run it as root on Linux with iproute2 (ip netns), as make test and CI do.`,
    );
  }
  removeStaleHosts(FLEET_HOSTS);
  const target = new URL(POSTGRES_URL);
  const made = makeHosts(FLEET_HOSTS, ["a", "b", "c"]);
  const relays: Relay[] = [];
  try {
    for (const host of made) {
      relays.push(await relay(host, { host: target.hostname, port: Number(target.port || 5432) }));
    }
  } catch (error) {
    await Promise.all(relays.map((each) => each.close()));
    removeHosts(made);
    throw error;
  }
  const withRelay = (host: Host, i: number) => {
    const url = new URL(POSTGRES_URL);
    url.hostname = host.gateway;
    url.port = String(relays[i]!.port);
    return { ...host, relay: relays[i]!, url: url.toString() };
  };
  hosts = { a: withRelay(made[0]!, 0), b: withRelay(made[1]!, 1), c: withRelay(made[2]!, 2) };
}, 60_000);

afterAll(async () => {
  for (const child of children) child.kill("SIGKILL");
  if (hosts) {
    await Promise.all(Object.values(hosts).map((host) => host.relay.close()));
    removeHosts(Object.values(hosts));
  }
  if (tables.length > 0) {
    const admin = newPool({ max: 1 });
    for (const table of tables) await dropTables(admin, table);
    await admin.end();
  }
  rmSync(root, { recursive: true, force: true });
});

interface Place {
  table: string;
  effects: string;
  runId: string;
}

function place(): Place {
  const table = freshTable();
  tables.push(table);
  const n = ++made;
  return { table, effects: join(root, `effects-${n}.txt`), runId: `fleet-run-${n}` };
}

/** Starts fixtures/durable-worker.ts in `host`'s namespace, its journal on Postgres through the host's link. */
function worker(
  host: keyof typeof hosts,
  mode: "run" | "recover" | "recover-listed",
  at: Place,
  env: Record<string, string> = {},
): Worker {
  const { namespace, url } = hosts[host];
  const runId = mode === "recover-listed" ? "-" : at.runId;
  const w = durableWorker(
    { mode, journal: "-", effects: at.effects, runId },
    { POSTGRES_URL: url, POSTGRES_TABLE: at.table, ...env },
    { namespace, name: `${mode} on host ${host}` },
  );
  children.add(w.child);
  w.child.on("exit", () => children.delete(w.child));
  return w;
}

const forty = (runId: string) => keys(runId, range(0, 40));

describe.runIf(FLEET)("a fleet of workers on hosts of their own, one Postgres journal", () => {
  it("a run started on host A and killed with SIGKILL halfway is found by host B in incompleteRuns and finished there: every effect once, the run's value", async () => {
    const at = place();
    const first = worker("a", "run", at, { IDEMPOTENT: "1" });
    await killAt(first, at.effects, 17);
    const recovered = await worker("b", "recover-listed", at, { IDEMPOTENT: "1" }).result;
    expect(recovered).toMatchObject({ status: "ok", value: FORTY_CALLS_VALUE, runId: at.runId });
    expect(linesOf(at.effects).sort()).toEqual(forty(at.runId));
    // Each host reached the database over its own link, from its own address.
    expect([...hosts.a.relay.peers]).toEqual([hosts.a.address]);
    expect([...hosts.b.relay.peers]).toEqual([hosts.b.address]);
  }, 120_000);

  it("of two recoverers on hosts B and C at once, exactly one wins, and every effect happens once", async () => {
    const at = place();
    const first = worker("a", "run", at, { IDEMPOTENT: "1" });
    await killAt(first, at.effects, 22);
    await claimAtOnce(
      (["b", "c"] as const).map((host) =>
        worker(host, "recover", at, { IDEMPOTENT: "1", WAIT_FOR_LINE: "1" }),
      ),
    );
    // Either way, the effects happened once.
    expect(linesOf(at.effects).sort()).toEqual(forty(at.runId));
    expect([...hosts.c.relay.peers]).toEqual([hosts.c.address]);
  }, 120_000);

  it("a call in flight on host A that is not idempotent: host B's recovery pauses with unknown-outcome, and a decision finishes it", async () => {
    const at = place();
    const first = worker("a", "run", at, { HANG_AT: "15" });
    await killAt(first, at.effects, 15);
    const paused = await worker("b", "recover-listed", at).result;
    expect(paused).toMatchObject({ status: "paused", runId: at.runId });
    // The operator looks each key up in the service: done ones get their result, the others run again.
    const decisions = decideUnknownOutcomes(paused, at.effects);
    const finished = await worker("c", "recover", at, { DECISIONS: decisions }).result;
    expect(finished).toMatchObject({ status: "ok", value: FORTY_CALLS_VALUE });
    expect(linesOf(at.effects).sort()).toEqual(forty(at.runId));
  }, 120_000);

  it("the namespace and link of a fleet test whose process was killed before its clean-up are removed", () => {
    // A process that has exited: its pid names the leftovers.
    const gone = spawnSync(process.execPath, ["-e", "process.pid"]).pid!;
    const namespace = `cordon-fleet-${gone}-z`;
    const link = `cf${gone}zh`;
    execFileSync("ip", ["netns", "add", namespace]);
    execFileSync("ip", ["link", "add", link, "type", "veth", "peer", "name", `cf${gone}zn`]);
    removeStaleHosts(FLEET_HOSTS);
    expect(namespaceExists(namespace)).toBe(false);
    expect(spawnSync("ip", ["link", "show", link]).status).not.toBe(0);
    // This run's own are alive, and stay.
    expect(namespaceExists(hosts.a.namespace)).toBe(true);
  });

  it("a host reaches the database only over its link: its own loopback has no server", async () => {
    const target = new URL(POSTGRES_URL);
    const probe = spawn("ip", [
      "netns",
      "exec",
      hosts.a.namespace,
      process.execPath,
      "-e",
      `require("node:net").connect(${Number(target.port || 5432)}, "127.0.0.1").on("connect", () => process.exit(0)).on("error", (e) => { console.log(e.code); process.exit(3); })`,
    ]);
    let out = "";
    probe.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    const code = await new Promise((resolve) => probe.on("exit", resolve));
    expect({ code, out: out.trim() }).toEqual({ code: 3, out: "ECONNREFUSED" });
  });
});
