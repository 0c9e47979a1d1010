// The prelude runs as source text inside the isolate and cannot import the constants of
// sandbox/guest/interface.ts: it repeats them, and this test holds the two copies together.
import { describe, expect, it } from "vitest";
import {
  DESCRIBE_CALL,
  MAX_ERROR_MESSAGE_CHARS,
  MAX_ERROR_NAME_CHARS,
  MAX_RECORDED_VALUES,
  MAX_STACK_FRAMES,
  SEARCH_CALL,
} from "../../sandbox/contract/index.js";
import { USER_CODE_FILENAME } from "../../sandbox/guest/interface.js";
import { preludeSource } from "../../sandbox/guest/prelude.js";

/** The value the prelude's source gives `const NAME = ...;`, read as a JSON literal. */
function preludeConstant(name: string): unknown {
  const match = new RegExp(`\\bconst ${name}(?:: \\w+)? = ([^;]+);`).exec(preludeSource());
  if (!match) throw new Error(`the prelude has no constant ${name}`);
  const literal = match[1]!;
  // A number may keep its separators (20_000) or come as the compiler printed it (2e4).
  return /^[\d_]+$/.test(literal) ? Number(literal.replace(/_/g, "")) : JSON.parse(literal);
}

describe("the guest prelude and the host agree", () => {
  it("on the file name of the model's code and the caps of a reported error", () => {
    expect(preludeConstant("USER_FILE")).toBe(USER_CODE_FILENAME);
    expect(preludeConstant("MAX_NAME")).toBe(MAX_ERROR_NAME_CHARS);
    expect(preludeConstant("MAX_MESSAGE")).toBe(MAX_ERROR_MESSAGE_CHARS);
    expect(preludeConstant("MAX_FRAMES")).toBe(MAX_STACK_FRAMES);
  });

  it("on the most values a run records for replay", () => {
    expect(preludeConstant("MAX_RECORDED")).toBe(MAX_RECORDED_VALUES);
  });

  it("on the names discovery calls cross the call channel under", () => {
    expect(preludeConstant("SEARCH_CALL")).toBe(SEARCH_CALL);
    expect(preludeConstant("DESCRIBE_CALL")).toBe(DESCRIBE_CALL);
  });

  it("on the run failure of a tampered session", () => {
    expect(preludeConstant("TAMPERED")).toBe("SandboxTampered");
  });
});

describe("the guest prelude", () => {
  // When the host function's promise settles, isolated-vm 5 to 7 mark the wait done and then signal a
  // condition variable that the waiting thread may already have freed (Scheduler::AsyncWait::Done): the
  // host thread hung in that signal, or the process crashed, about one bench try in ten.
  it("never waits inside isolated-vm's applySyncPromise, whose host side can signal freed memory", () => {
    expect(preludeSource()).not.toContain("applySyncPromise");
  });
});
