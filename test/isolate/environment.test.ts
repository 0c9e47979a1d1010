import ivm from "isolated-vm";
import { describe, expect, it } from "vitest";
import { ISOLATE_ISOLATION, isolateEnvironment } from "../../environments/in-process/index.js";
import { nodeFlagProblem } from "../../sandbox/isolate/load.js";
import { LIMITS, makeBridge, resultOf } from "./helpers.js";

describe("isolate environment: the environment object", () => {
  it("is named isolate and describes its isolation honestly", () => {
    const environment = isolateEnvironment();
    expect(environment.name).toBe("isolate");
    expect(environment.isolation).toBe(ISOLATE_ISOLATION);
    expect(environment.isolation).toMatch(/V8 isolate inside the agent's own process/);
    expect(environment.isolation).toMatch(/ends the agent too/);
    // The model reads this: it must not promise an environment the model is not in.
    expect(environment.isolation).not.toMatch(/Docker|separate process/);
  });

  it("uses the isolated-vm module passed as an option", async () => {
    let created = 0;
    class CountingIsolate extends ivm.Isolate {
      constructor(options?: ivm.IsolateOptions) {
        super(options);
        created++;
      }
    }
    const environment = isolateEnvironment({
      ivm: Object.create(ivm, { Isolate: { value: CountingIsolate } }) as typeof ivm,
      warm: 0, // no spare: the one isolate is the sandbox's own
    });
    const sandbox = await environment.open(LIMITS);
    const outcome = await sandbox.execute(
      { code: "return 6 * 7;", toolNames: {}, limits: LIMITS },
      makeBridge(),
      new AbortController().signal,
    );
    expect(resultOf(outcome)).toBe(42);
    expect(created).toBe(1);
    await environment.close();
  });

  it("disposes every open sandbox on close and refuses to open more", async () => {
    const environment = isolateEnvironment();
    const first = await environment.open(LIMITS);
    const second = await environment.open(LIMITS);
    await environment.close();
    expect(first.alive).toBe(false);
    expect(second.alive).toBe(false);
    await expect(environment.open(LIMITS)).rejects.toThrow(/closed/);
  });

  it("requires --no-node-snapshot on Node 20 and later, on the command line or in NODE_OPTIONS", () => {
    expect(nodeFlagProblem({ version: "v20.11.0", execArgv: [], nodeOptions: undefined })).toMatch(
      /needs Node to run with --no-node-snapshot/,
    );
    expect(
      nodeFlagProblem({ version: "v22.1.0", execArgv: ["--no-node-snapshot"], nodeOptions: "" }),
    ).toBeUndefined();
    expect(
      nodeFlagProblem({ version: "v20.11.0", execArgv: [], nodeOptions: "--no-node-snapshot" }),
    ).toBeUndefined();
    expect(nodeFlagProblem({ version: "v18.19.0", execArgv: [], nodeOptions: undefined })).toBeUndefined();
  });
});
