/**
 * Hostile code against each engine's environments, for what does not threaten the agent's process itself:
 * input that used to freeze the host's event loop, fill its memory through tool calls and errors, steer
 * the next run of a session, or act after its run had ended.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { Environment } from "../../sandbox/contract/index.js";
import { SESSION_TAMPERED } from "../../src/codemode/code-mode.js";
import { type CodeMode, type CodeModeOptions, codeMode, Dispatcher, Toolset, tool } from "../../src/index.js";
import { ENGINE_ENVIRONMENTS } from "../isolate/helpers.js";
import { guardHost } from "./host-guard.js";

guardHost();

const opened: CodeMode[] = [];
/** The environment of the engine whose suite runs (see the loop below). */
let current: Environment | undefined;
afterAll(async () => {
  await Promise.all(opened.map((cm) => cm.close()));
});

function make(options: Partial<CodeModeOptions> = {}) {
  const calls: { tool: string; args: unknown }[] = [];
  const writes: string[] = [];
  const record = (name: string) => (args: unknown) => {
    calls.push({ tool: name, args });
    return args;
  };
  const echo = tool({
    name: "echo",
    description: "Echo.",
    input: z.object({}).passthrough(),
    run: record("echo"),
  });
  const danger = tool({
    name: "delete_everything",
    description: "Must only run when code calls it.",
    input: z.object({}),
    run: record("delete_everything"),
  });
  const slowWrite = tool({
    name: "slow_write",
    description: "Waits, then writes, never looking at its abort signal.",
    input: z.object({ text: z.string(), ms: z.number() }),
    run: async ({ text, ms }) => {
      await new Promise((resolve) => setTimeout(resolve, ms));
      writes.push(text);
      return "written";
    },
  });
  // Writes held until the code calls release: the calls stay unfinished however slowly the code starts them.
  let open: () => void = () => {};
  const writable = new Promise<void>((resolve) => {
    open = resolve;
  });
  const heldWrite = tool({
    name: "held_write",
    description: "Waits until release is called, then writes.",
    input: z.object({ text: z.string() }),
    run: async ({ text }) => {
      await writable;
      writes.push(text);
      return "written";
    },
  });
  const release = tool({
    name: "release",
    description: "Lets the held writes finish.",
    input: z.object({}),
    run: () => {
      open();
      return "released";
    },
  });
  const cm = codeMode({
    tools: [echo, danger, slowWrite, heldWrite, release],
    ...(current === undefined ? {} : { environment: current }),
    ...options,
  });
  opened.push(cm);
  return { cm, calls, writes };
}

/** Runs `work` while an interval ticks: the host's event loop must keep running during it. */
async function whileTicking<T>(work: () => Promise<T>): Promise<{ value: T; ticks: number }> {
  let ticks = 0;
  const interval = setInterval(() => ticks++, 5);
  try {
    return { value: await work(), ticks };
  } finally {
    clearInterval(interval);
  }
}

for (const { name, create } of ENGINE_ENVIRONMENTS) {
  describe(`[${name}]`, () => {
    // One environment per engine, for every code mode of the suite: closed after it.
    let environment: Environment | undefined;
    beforeAll(() => {
      environment = create();
      current = environment;
    });
    afterAll(async () => {
      await environment?.close();
    });

    describe("security: the host's event loop never waits on sandbox-made input", () => {
      it("closers in a comment do not hide 12,000 nested blocks from the nesting check", async () => {
        const { cm } = make();
        const code = `/* ${")]}".repeat(20_000)} */\nconst x: number = 1;\n${"{".repeat(12_000)}${"}".repeat(12_000)}`;
        const result = await cm.run(code);
        expect(result.status).toBe("error");
        expect(result.error?.message).toMatch(/nested more than 200 levels/);
      });

      it("an error message of 300,000 line breaks is located in linear time, and the loop keeps ticking", async () => {
        const { cm } = make();
        const { value: result, ticks } = await whileTicking(() =>
          cm.run('throw { name: "E", message: "\\n".repeat(300000) }'),
        );
        expect(result.status).toBe("error");
        expect(result.error?.name).toBe("E");
        expect(result.error?.message.length).toBeLessThanOrEqual(20_000 + 40);
        expect(ticks).toBeGreaterThan(0);
      });

      it("a result that is a huge tree is shrunk for the model within its output limit", async () => {
        const { cm } = make({ limits: { maxOutputChars: 1_000 } });
        const { value: result } = await whileTicking(() =>
          cm.run("const mk = (d) => d ? [mk(d - 1), mk(d - 1), mk(d - 1)] : 0; [mk(11), mk(10), mk(10)]"),
        );
        expect(result.status).toBe("ok");
        const text = cm.tool.options.render!(result, undefined as never) as string;
        expect(text.length).toBeLessThanOrEqual(1_000);
        expect(text).toMatch(/result \(shortened to fit/);
      });

      it("a __proto__ key in a result survives in the shortened text the model reads", async () => {
        const { cm } = make({ limits: { maxOutputChars: 300 } });
        const result = await cm.run(
          `JSON.parse('{"__proto__": {"admin": true}, "pad": "${"x".repeat(1_000)}"}')`,
        );
        const text = cm.tool.options.render!(result, undefined as never) as string;
        expect(text).toContain('"__proto__":{"admin":true}');
      });
    });

    describe("security: host memory through tool arguments and errors", () => {
      it("arguments over the per-call cap are refused inside the sandbox, before they leave it", async () => {
        const { cm, calls } = make();
        const result = await cm.run(
          'try { await tools.echo({ s: "x".repeat(2_000_000) }); } catch (e) { return [e.kind, e.message]; }',
        );
        expect(result.value).toEqual([
          "invalid_arguments",
          expect.stringMatching(/are \d+ characters of JSON; one call may carry at most 1000000\./),
        ]);
        expect(calls).toEqual([]);
        expect(result.calls).toEqual([]);
      });

      it("a run cannot queue more than its share of argument bytes behind slow calls", async () => {
        // Every call may start at once, so that release is not queued behind the held writes.
        const { cm } = make({ limits: { maxToolCalls: 100, maxConcurrentCalls: 64 } });
        const code = `
          const big = "x".repeat(900_000);
          const calls = [];
          for (let i = 0; i < 40; i++) calls.push(tools.held_write({ text: big }).then(() => "ok", (e) => e.kind + ": " + e.message));
          await tools.release({});
          const outcomes = await Promise.all(calls);
          return [outcomes.filter((o) => o === "ok").length, outcomes.find((o) => o !== "ok")];`;
        const result = await cm.run(code);
        const [ok, refusal] = result.value as [number, string];
        expect(ok).toBeLessThan(40);
        expect(ok).toBeGreaterThan(0);
        expect(refusal).toMatch(
          /^limit: This run already has \d+ characters of arguments in tool calls that have not finished/,
        );
      });
    });

    describe("security: one run cannot steer the next run of its session", () => {
      it("a redefined tools object cannot replace the real one", async () => {
        const { cm, calls } = make({ state: "session" });
        const first = await cm.run(
          'try { Object.defineProperty(globalThis, "tools", { value: { echo: () => "fake" } }); } catch (e) { return e.constructor.name; }',
          { session: "s1" },
        );
        expect(first.value).toBe("TypeError");
        const second = await cm.run("await tools.echo({ real: true })", { session: "s1" });
        expect(second.value).toEqual({ real: true });
        expect(calls).toEqual([{ tool: "echo", args: { real: true } }]);
      });

      it("a rebound globalThis.globalThis is refused", async () => {
        const { cm } = make({ state: "session" });
        const first = await cm.run(
          '"use strict"; try { globalThis.globalThis = { tools: {} }; return "rebound"; } catch (e) { return e.constructor.name; }',
          { session: "s2" },
        );
        expect(first.value).toBe("TypeError");
        const second = await cm.run("globalThis === globalThis.globalThis", { session: "s2" });
        expect(second.value).toBe(true);
      });

      it("a patched Promise.prototype.then cannot rewrite the next run's value: the session starts afresh", async () => {
        const { cm } = make({ state: "session" });
        await cm.run(
          "const then = Promise.prototype.then; Promise.prototype.then = function (ok, fail) { return then.call(this, () => ok('forged'), fail); }; 1",
          { session: "s3" },
        );
        const second = await cm.run("const mine = 41; await null; return mine + 1;", { session: "s3" });
        expect(second.status).toBe("ok");
        expect(second.value).toBe(42);
        expect(second.logs[0]?.level).toBe("warn");
        expect(second.logs[0]?.text).toContain(SESSION_TAMPERED);
        expect(second.logs[0]?.text).toMatch(/Promise\.prototype\.then was changed/);
      });

      it("an Object.prototype.then getter cannot make the next run call a tool its code does not contain", async () => {
        const { cm, calls } = make({ state: "session" });
        await cm.run(
          'Object.defineProperty(Object.prototype, "then", { get() { tools.delete_everything({}); return undefined; }, configurable: true }); 1',
          { session: "s4" },
        );
        const second = await cm.run("const r = await tools.echo({ x: 1 }); return r;", { session: "s4" });
        expect(second.value).toEqual({ x: 1 });
        expect(calls.map((call) => call.tool)).toEqual(["echo"]);
        expect(second.logs[0]?.text).toMatch(/Object\.prototype\.then was added/);
      });

      it("a non-configurable tools property cannot be planted to make the next run time out", async () => {
        const { cm } = make({ state: "session" });
        const first = await cm.run(
          'try { Object.defineProperty(globalThis, "tools", { value: {}, configurable: false }); } catch (e) { return "refused"; }',
          { session: "s5" },
        );
        expect(first.value).toBe("refused");
        const second = await cm.run("await tools.echo({ ok: 1 })", { session: "s5" });
        expect(second).toMatchObject({ status: "ok", value: { ok: 1 } });
      });

      it("a getter left on the global for a name the next run declares does not run in that run", async () => {
        const { cm, calls } = make({ state: "session" });
        await cm.run(
          'Object.defineProperty(globalThis, "count", { get() { tools.delete_everything({}); return 0; }, configurable: true }); 1',
          { session: "s6" },
        );
        const second = await cm.run("var count = 5; count", { session: "s6" });
        expect(second.value).toBe(5);
        expect(calls).toEqual([]);
      });
    });

    describe("security: no effect after the end, even from a tool that ignores its signal", () => {
      it("a run that times out with a slow write in flight returns only after the write has landed", async () => {
        const { cm, writes } = make({ limits: { timeoutMs: 100 } });
        const result = await cm.run('await tools.slow_write({ text: "late", ms: 300 })');
        expect(result.status).toBe("timeout");
        // The run waited for the tool: nothing it started can land after it returned.
        expect(writes).toEqual(["late"]);
        expect(result.calls).toEqual([expect.objectContaining({ tool: "slow_write", status: "cancelled" })]);
      });

      it("a cancelled direct dispatch offers the same wait: handle.settled()", async () => {
        const { writes } = make();
        const slowWrite = tool({
          name: "slow_write",
          description: "Waits, then writes.",
          input: z.object({}),
          run: async () => {
            await new Promise((resolve) => setTimeout(resolve, 50));
            writes.push("direct");
          },
        });
        const controller = new AbortController();
        const handle = new Dispatcher(new Toolset([slowWrite])).dispatch(
          [{ id: "w", name: "slow_write", arguments: {} }],
          { signal: controller.signal },
        );
        setTimeout(() => controller.abort(), 10);
        await handle.results().catch(() => {});
        expect(writes).toEqual([]);
        await handle.settled();
        expect(writes).toEqual(["direct"]);
      });
    });
  });
}
