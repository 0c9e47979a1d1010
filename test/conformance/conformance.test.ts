/**
 * One suite, every environment: the in-process isolate, QuickJS, the default sandbox host, Docker and a
 * remote server. The cases themselves are ./cases.ts, which the runtime matrix also runs on Bun, Deno and
 * workerd; here each runs on Node against each environment. After the suite no container or sandbox
 * process is left.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dockerEnvironment } from "../../environments/docker/index.js";
import { isolateEnvironment } from "../../environments/in-process/index.js";
import { quickjsEnvironment } from "../../environments/quickjs/index.js";
import { remoteEnvironment, type SandboxServer, serveSandboxes } from "../../environments/remote/index.js";
import { sandboxHostEnvironment } from "../../environments/sandbox-host/index.js";
import type { Environment } from "../../src/index.js";
import { DOCKER_SUITES, engine } from "../docker/helpers.js";
import { sandboxChildren } from "../sandbox-host/children.js";
import { type Capability, type ConformanceSubject, casesFor } from "./cases.js";

const TOKEN = "conformance-token-0123456789";

interface Subject {
  name: string;
  /** What it cannot do, with why (the cases that need it are not asked of it). */
  lacks: Partial<Record<Capability, string>>;
  create(): Promise<Environment> | Environment;
}

const servers: SandboxServer[] = [];
const subjects: Subject[] = [
  {
    name: "in-process isolate",
    lacks: { "crash containment": "a V8 fatal error there ends the agent's process too (as documented)" },
    create: () => isolateEnvironment(),
  },
  { name: "quickjs", lacks: {}, create: () => quickjsEnvironment() },
  { name: "sandbox host", lacks: {}, create: () => sandboxHostEnvironment({ processes: 1 }) },
  {
    name: "remote (cordon serve)",
    lacks: {},
    create: async () => {
      const server = await serveSandboxes({
        environment: sandboxHostEnvironment({ processes: 1 }),
        token: TOKEN,
      });
      servers.push(server);
      return remoteEnvironment({ url: server.url, token: TOKEN });
    },
  },
];
if (DOCKER_SUITES) subjects.push({ name: "docker", lacks: {}, create: () => dockerEnvironment({ warm: 2 }) });

for (const subject of subjects) {
  describe(`conformance: ${subject.name}`, () => {
    // Filled before the first case runs, closed after the last: the environment is shared by the cases.
    const shared: ConformanceSubject = {
      environment: undefined as unknown as Environment,
      lacks: subject.lacks,
    };
    beforeAll(async () => {
      shared.environment = await subject.create();
    }, 60_000);
    afterAll(async () => {
      await shared.environment.close();
    }, 60_000);

    for (const each of casesFor(subject).cases) it(each.name, () => each.run(shared));
  });
}

describe("conformance: nothing is left behind", () => {
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.close()));
  });

  it("no sandbox process of this process and no sandbox container outlive the suites", async () => {
    await Promise.all(servers.map((server) => server.close()));
    await expect.poll(() => sandboxChildren().length, { timeout: 10_000 }).toBe(0);
    if (DOCKER_SUITES) {
      const labelled = await engine().listContainers({
        all: true,
        filters: { label: [`cordon.owner.pid=${process.pid}`] },
      });
      expect(labelled).toEqual([]);
    }
  });
});
