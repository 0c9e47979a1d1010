/**
 * Code mode tells the sandbox which tools may wait for a person (gated by an approval, or asking a
 * human), so that no sandbox thread waits inside those calls for minutes; other tools' lone calls are
 * answered inside the call.
 */

import { describe, expect, it } from "vitest";
import { z } from "zod";
import { isolateEnvironment } from "../../environments/in-process/index.js";
import type { Environment, ExecutionRequest } from "../../sandbox/contract/index.js";
import { codeMode, tool } from "../../src/index.js";

/** An isolate environment that records the request of every execution. */
function recording(requests: ExecutionRequest[]): Environment {
  const inner = isolateEnvironment();
  return {
    name: inner.name,
    isolation: inner.isolation,
    close: () => inner.close(),
    async open(limits) {
      const sandbox = await inner.open(limits);
      return {
        get alive() {
          return sandbox.alive;
        },
        execute: (request, bridge, signal) => {
          requests.push(request);
          return sandbox.execute(request, bridge, signal);
        },
        dispose: () => sandbox.dispose(),
      };
    },
  };
}

const input = z.object({});
const plain = tool({ name: "plain", description: "Plain.", input, run: () => 1 });
const gated = tool({ name: "gated", description: "Gated.", input, needsApproval: true, run: () => 2 });
const sometimes = tool({
  name: "sometimes",
  description: "Gated by a predicate.",
  input,
  needsApproval: () => false,
  run: () => 3,
});
const never = tool({ name: "never", description: "Not gated.", input, needsApproval: false, run: () => 4 });
const asks = tool({ name: "asks", description: "Asks a person.", input, waitsForHuman: true, run: () => 5 });

describe("code mode: tools that may wait for a person", () => {
  it("names gated and human-asking tools in the request, and only those", async () => {
    const requests: ExecutionRequest[] = [];
    const cm = codeMode({ tools: [plain, gated, sometimes, never, asks], environment: recording(requests) });
    try {
      const result = await cm.run(
        "return [await tools.plain(), await tools.sometimes(), await tools.never(), await tools.asks()];",
      );
      expect(result.value).toEqual([1, 3, 4, 5]);
      expect([...(requests[0]?.waitingTools ?? [])].sort()).toEqual(["asks", "gated", "sometimes"]);
    } finally {
      await cm.close();
    }
  });

  it("sends no list when no tool may wait for a person", async () => {
    const requests: ExecutionRequest[] = [];
    const cm = codeMode({ tools: [plain, never], environment: recording(requests) });
    try {
      expect((await cm.run("return await tools.plain();")).value).toBe(1);
      expect(requests[0]?.waitingTools).toBeUndefined();
    } finally {
      await cm.close();
    }
  });
});
