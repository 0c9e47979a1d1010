/**
 * The answer slot of in-process sandboxes (a call the code waits for alone is answered in shared memory
 * while the guest's thread spins), and the judgement of whether the machine has a core to spare for
 * that spin: the slot's protocol read from the guest's side as the prelude reads it, the judgement as
 * pure functions, and whole runs through code mode with `spin: "always"`.
 */

import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { isolateEnvironment } from "../../environments/in-process/index.js";
import {
  ANSWER_LATER,
  ANSWER_LENGTH,
  ANSWER_SPINS_WORD,
  ANSWER_STATE,
  ANSWER_TEXT_BYTE,
  ANSWERED,
} from "../../sandbox/guest/interface.js";
import {
  ANSWER_SLOT_BYTES,
  ANSWER_SPINS,
  AnswerSlot,
  alwaysSpin,
} from "../../sandbox/isolate/answer-slot.js";
import {
  idleCoresBetween,
  judgeSpareCore,
  NO_SPARE_BELOW_IDLE_CORES,
  SPARE_FROM_IDLE_CORES,
} from "../../sandbox/isolate/spare-core.js";
import { type AnyTool, codeMode, Toolset, tool } from "../../src/index.js";

/** A synchronous tool: what a sequential call answered in the slot needs. */
const add = tool({
  name: "add",
  description: "Adds one.",
  input: z.object({ n: z.number() }),
  run: ({ n }) => n + 1,
});

/** The guest's view of a slot: waits for a ticket, reads what the host made of it. */
function guestOf(slot: AnswerSlot) {
  const { buffer } = slot.guestSide();
  const words = new Int32Array(buffer, 0, ANSWER_TEXT_BYTE / 4);
  const text = new Uint16Array(buffer, ANSWER_TEXT_BYTE);
  return {
    wait: (ticket: number) => Atomics.store(words, ANSWER_STATE, ticket),
    giveUp: (ticket: number) => Atomics.compareExchange(words, ANSWER_STATE, ticket, 0),
    state: () => Atomics.load(words, ANSWER_STATE),
    spins: () => Atomics.load(words, ANSWER_SPINS_WORD),
    answer: () => String.fromCharCode(...text.subarray(0, Atomics.load(words, ANSWER_LENGTH))),
  };
}

describe("answer slot: the host's side of the protocol", () => {
  it("hands an answer to the guest waiting for that call's ticket", () => {
    const slot = new AnswerSlot(alwaysSpin);
    const guest = guestOf(slot);
    guest.wait(7);
    expect(slot.answer(7, 'o{"n":1,"name":"北京 🚀"}')).toBe(true);
    expect(guest.state()).toBe(ANSWERED);
    expect(guest.answer()).toBe('o{"n":1,"name":"北京 🚀"}');
  });

  it("refuses an answer to a call the guest gave up on, and leaves the call it waits for now alone", () => {
    const slot = new AnswerSlot(alwaysSpin);
    const guest = guestOf(slot);
    guest.wait(1);
    expect(guest.giveUp(1)).toBe(1);
    guest.wait(2);
    expect(slot.answer(1, "o1")).toBe(false);
    expect(guest.state()).toBe(2);
    expect(slot.answer(2, "o2")).toBe(true);
    expect(guest.answer()).toBe("o2");
  });

  it("refuses an answer longer than the slot holds and tells the guest it comes through the entry", () => {
    const slot = new AnswerSlot(alwaysSpin);
    const guest = guestOf(slot);
    guest.wait(3);
    const long = `o"${"x".repeat((ANSWER_SLOT_BYTES - ANSWER_TEXT_BYTE) / 2)}"`;
    expect(slot.answer(3, long)).toBe(false);
    expect(guest.state()).toBe(ANSWER_LATER);
  });

  it("says 'later' only to the call whose ticket it names", () => {
    const slot = new AnswerSlot(alwaysSpin);
    const guest = guestOf(slot);
    guest.wait(5);
    slot.later(4);
    expect(guest.state()).toBe(5);
    slot.later(5);
    expect(guest.state()).toBe(ANSWER_LATER);
  });

  it("tells the guest how many looks its next call may take, judged again at every answer", () => {
    let spins = ANSWER_SPINS;
    const slot = new AnswerSlot(() => spins);
    const guest = guestOf(slot);
    expect(guest.spins()).toBe(ANSWER_SPINS);
    spins = 0;
    guest.wait(1);
    slot.answer(1, "o1");
    expect(guest.spins()).toBe(0);
  });
});

describe("spare core: whether the guest may spin", () => {
  const times = (idle: number, total: number, cores = 2) => ({ idle, total, cores });

  it("counts the cores that were idle on average between two looks", () => {
    expect(idleCoresBetween(times(0, 0), times(750, 1000))).toBeCloseTo(1.5);
    expect(idleCoresBetween(times(100, 1000), times(100, 2000))).toBe(0);
    expect(idleCoresBetween(times(0, 1000), times(0, 1000))).toBe(0);
  });

  it("starts spinning from half an idle core, and stops only below a quarter (its own spin looks busy)", () => {
    expect(judgeSpareCore(false, SPARE_FROM_IDLE_CORES)).toBe(true);
    expect(judgeSpareCore(false, (SPARE_FROM_IDLE_CORES + NO_SPARE_BELOW_IDLE_CORES) / 2)).toBe(false);
    expect(judgeSpareCore(true, (SPARE_FROM_IDLE_CORES + NO_SPARE_BELOW_IDLE_CORES) / 2)).toBe(true);
    expect(judgeSpareCore(true, NO_SPARE_BELOW_IDLE_CORES / 2)).toBe(false);
  });
});

describe("in-process runs whose calls spin on the answer slot", () => {
  afterEach(() => vi.restoreAllMocks());

  /** Runs `code` once with `tools` in an in-process environment whose calls always spin (closed after). */
  const run = async (tools: AnyTool[], code: string) => {
    const cm = codeMode({ tools: new Toolset(tools), environment: isolateEnvironment({ spin: "always" }) });
    try {
      return await cm.run(code);
    } finally {
      await cm.close();
    }
  };
  const echo = tool({
    name: "echo",
    description: "Echoes its text.",
    input: z.object({ text: z.string() }),
    run: ({ text }) => text,
  });

  it("answers a synchronous tool in the slot, each call its own answer", async () => {
    const answered = vi.spyOn(AnswerSlot.prototype, "answer");
    const result = await run([add], "let n = 0; for (let i = 0; i < 90; i++) n = await tools.add({ n }); n");
    expect(result.status, JSON.stringify(result.error)).toBe("ok");
    expect(result.value).toBe(90);
    expect(answered).toHaveBeenCalledTimes(90);
    expect(answered.mock.results.some((call) => call.value === true)).toBe(true);
  });

  it("carries text of any script, and a result longer than the slot, unchanged", async () => {
    const long = "长".repeat(ANSWER_SLOT_BYTES);
    const code = `[await tools.echo({ text: "x 🚀 北京 \\u00e9" }), (await tools.echo({ text: ${JSON.stringify(long)} })).length]`;
    const result = await run([echo], code);
    expect(result.status).toBe("ok");
    expect(result.value).toEqual(["x 🚀 北京 é", long.length]);
  });

  it("delivers the answer of a tool slower than the guest's looks through the entry", async () => {
    const slow = tool({
      name: "slow",
      description: "Answers after 30 ms of work.",
      input: z.object({}),
      run: () => {
        // Long enough that the guest has given up even if it was kept off its core for a while.
        const end = performance.now() + 30;
        while (performance.now() < end);
        return "done";
      },
    });
    const answered = vi.spyOn(AnswerSlot.prototype, "answer");
    const result = await run([slow], "[await tools.slow({}), await tools.slow({})]");
    expect(result.value).toEqual(["done", "done"]);
    expect(answered.mock.results.map((call) => call.value)).toEqual([false, false]);
  });

  it("tells the guest an asynchronous tool's answer comes later, and delivers it", async () => {
    const later = vi.spyOn(AnswerSlot.prototype, "later");
    const wait = tool({
      name: "wait",
      description: "Answers after 5 ms.",
      input: z.object({}),
      run: () => new Promise((resolve) => setTimeout(() => resolve("waited"), 5)),
    });
    const result = await run([wait], "[await tools.wait({}), await tools.wait({})]");
    expect(result.value).toEqual(["waited", "waited"]);
    expect(later).toHaveBeenCalledTimes(2);
  });

  it("rejects with the tool's error when it fails", async () => {
    const broken = tool({
      name: "broken",
      description: "Always fails.",
      input: z.object({}),
      run: () => {
        throw new Error("the disk is full");
      },
    });
    const result = await run(
      [broken],
      "let m; try { await tools.broken({}); } catch (e) { m = e.message } m",
    );
    expect(result.status).toBe("ok");
    expect(String(result.value)).toContain("the disk is full");
  });

  it("attack: code that replaces Atomics, subarray and fromCharCode cannot change what a call returns", async () => {
    const code = `
      Atomics.wait = () => "not-equal";
      Atomics.load = () => -1;
      Atomics.compareExchange = () => -1;
      Object.getPrototypeOf(Uint16Array.prototype).subarray = () => new Uint16Array([111, 34, 120, 34]);
      String.fromCharCode = () => 'o"forged"';
      [await tools.echo({ text: "real" }), await tools.echo({ text: "also real" })]`;
    const result = await run([echo], code);
    expect(result.status).toBe("ok");
    expect(result.value).toEqual(["real", "also real"]);
  });

  /** `o"forged"`, as the slot holds an answer: what a view the code made would read as a call's result. */
  const FORGED_ANSWER = "[111, 34, 102, 111, 114, 103, 101, 100, 34]";

  it("attack: a Uint16Array species hands model code the answer slot's buffer, and forges what calls return", async () => {
    // The species is what subarray() builds its view with: the code would get the slot's buffer and
    // return a view of its own text instead.
    const code = `
      const tag = (v) => Object.prototype.toString.call(v);
      const handed = [];
      const Original = Uint16Array;
      Object.defineProperty(Uint16Array, Symbol.species, {
        configurable: true,
        get() {
          return function (buffer) {
            handed.push(tag(buffer));
            return new Original(${FORGED_ANSWER});
          };
        },
      });
      const results = [];
      for (let i = 0; i < 60; i++) results.push(await tools.echo({ text: "real " + i }));
      ({ handed, forged: results.filter((text, i) => text !== "real " + i) })`;
    const result = await run([echo], code);
    expect(result.status, JSON.stringify(result.error)).toBe("ok");
    expect(result.value).toEqual({ handed: [], forged: [] });
  });

  it("attack: getters and setters on every prototype the guest's plumbing might touch are handed nothing of the host's", async () => {
    // A trap on each key the engine or the prelude could look up (a species' constructor, length,
    // then, toJSON, a descriptor's fields, the config's optional fields, array indices) notes every
    // receiver and value it sees while calls are answered in the slot, fail and log.
    const code = `
      const tag = (v) => Object.prototype.toString.call(v);
      const bare = (o) => Object.setPrototypeOf(o, null);
      const seen = new Set();
      const note = (v) => { if ((typeof v === "object" && v !== null) || typeof v === "function") seen.add(v); };
      const keys = ["then", "constructor", "buffer", "length", "value", "get", "set", "writable", "enumerable",
        "configurable", "toJSON", "resolve", "tool", "kind", "message", "name", "stack", "replayCalls", "replay",
        "record", "final", "waitingTools", "discovery", "names", "0", "1", "2", "3"];
      const prototypes = [Object.prototype, Array.prototype, Function.prototype, Promise.prototype, Error.prototype,
        Object.getPrototypeOf(Uint16Array.prototype), Uint16Array.prototype, Int32Array.prototype, String.prototype];
      const saved = [];
      for (const prototype of prototypes) for (const key of keys) {
        const found = Object.getOwnPropertyDescriptor(prototype, key);
        const before = found && bare(found);
        if (before && !before.configurable) continue;
        saved.push([prototype, key, before]);
        Object.defineProperty(prototype, key, bare({
          configurable: true,
          get() { note(this); return before ? (before.get ? before.get.call(this) : before.value) : undefined; },
          set(value) {
            note(this); note(value);
            if (before && before.set) before.set.call(this, value);
            else Object.defineProperty(this, key, bare({ value, writable: true, enumerable: true, configurable: true }));
          },
        }));
      }
      Object.defineProperty(Uint16Array, Symbol.species, bare({ configurable: true, get() { note(this); return Uint16Array; } }));
      const results = [];
      for (let i = 0; i < 40; i++) results.push(await tools.echo({ text: "real " + i }));
      try { await tools.broken({}); } catch (error) { note(error); }
      console.log("a line", { a: 1 }, [1, 2]);
      for (let i = saved.length - 1; i >= 0; i--) {
        const [prototype, key, before] = saved[i];
        if (before) Object.defineProperty(prototype, key, before); else delete prototype[key];
      }
      delete Uint16Array[Symbol.species];
      const handed = [];
      for (const value of seen) {
        const shared = tag(value) === "[object SharedArrayBuffer]" ||
          (ArrayBuffer.isView(value) && tag(value.buffer) === "[object SharedArrayBuffer]");
        if (shared) handed.push("the slot");
        if (typeof value === "function" && /applySync|send|decide|settle/.test(value.name)) handed.push(value.name);
        for (const field of ["callId", "toolNames", "descriptors", "pending", "unsent"]) {
          if (typeof value === "object" && Object.prototype.hasOwnProperty.call(value, field)) handed.push(field);
        }
      }
      ({ real: results.every((text, i) => text === "real " + i), handed })`;
    const broken = tool({
      name: "broken",
      description: "Always fails.",
      input: z.object({}),
      run: () => {
        throw new Error("no");
      },
    });
    const result = await run([echo, broken], code);
    expect(result.status, JSON.stringify(result.error)).toBe("ok");
    expect(result.value).toEqual({ real: true, handed: [] });
  });

  it("attack: a Uint16Array species left by one run of a session forges the tool results of its next three runs", async () => {
    const cm = codeMode({
      tools: new Toolset([echo]),
      environment: isolateEnvironment({ spin: "always" }),
      state: "session",
    });
    try {
      const planted = await cm.run(
        `const Original = Uint16Array;
        Object.defineProperty(Uint16Array, Symbol.species, {
          configurable: true,
          get() { return function () { return new Original(${FORGED_ANSWER}); }; },
        });
        "planted"`,
        { session: "victim" },
      );
      expect(planted.value).toBe("planted");
      const real = Array.from({ length: 15 }, (_, i) => `real ${i}`);
      for (let later = 1; later <= 3; later++) {
        const result = await cm.run(
          "const out = []; for (let i = 0; i < 15; i++) out.push(await tools.echo({ text: 'real ' + i })); out",
          { session: "victim" },
        );
        expect(result.value).toEqual(real);
        // The first of them finds the species among the watched built-ins: it runs in a fresh sandbox.
        if (later === 1) {
          expect(result.logs.map((line) => line.text).join("\n")).toMatch(
            /changed a built-in that run_code relies on \(Uint16Array\[Symbol\.species\] was added\)/,
          );
        }
      }
    } finally {
      await cm.close();
    }
  });

  it("attack: code that searches everything it can reach finds no shared memory (the slot)", async () => {
    const code = `
      await tools.echo({ text: "warm" });
      const tag = (v) => Object.prototype.toString.call(v);
      const seen = new Set(), queue = [globalThis], found = [];
      while (queue.length > 0) {
        const value = queue.shift();
        if (tag(value) === "[object SharedArrayBuffer]") found.push("buffer");
        if (ArrayBuffer.isView(value) && tag(value.buffer) === "[object SharedArrayBuffer]") found.push("view");
        for (const next of [Object.getPrototypeOf(value), ...Reflect.ownKeys(value).flatMap((key) => {
          const d = Object.getOwnPropertyDescriptor(value, key);
          return d ? [d.value, d.get, d.set] : [];
        })]) {
          if ((typeof next === "object" && next !== null) || typeof next === "function") {
            if (!seen.has(next)) { seen.add(next); queue.push(next); }
          }
        }
      }
      ({ found, objects: seen.size, sharedArrayBuffer: typeof SharedArrayBuffer })`;
    const result = await run([echo], code);
    expect(result.status, JSON.stringify(result.error)).toBe("ok");
    const value = result.value as { found: string[]; objects: number; sharedArrayBuffer: string };
    expect(value.found).toEqual([]);
    expect(value.objects).toBeGreaterThan(500);
    expect(value.sharedArrayBuffer).toBe("undefined");
  });
});

describe("isolateEnvironment: the spin option", () => {
  it("rejects a spin that is not auto, always or never, saying which are", () => {
    const options = { spin: "sometimes" } as unknown as Parameters<typeof isolateEnvironment>[0];
    expect(() => isolateEnvironment(options)).toThrow(
      /spin must be "auto", "always" or "never"; got sometimes/,
    );
  });

  it("runs calls with spin 'never' (the guest sleeps in a synchronous call)", async () => {
    const environment = isolateEnvironment({ spin: "never" });
    const answered = vi.spyOn(AnswerSlot.prototype, "answer");
    const cm = codeMode({ tools: new Toolset([add]), environment });
    try {
      const result = await cm.run("let n = 0; for (let i = 0; i < 20; i++) n = await tools.add({ n }); n");
      expect(result.value).toBe(20);
      expect(answered).not.toHaveBeenCalled();
    } finally {
      await cm.close();
      vi.restoreAllMocks();
    }
  });
});
