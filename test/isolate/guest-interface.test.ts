import { describe, expect, it } from "vitest";
import { preludeSource } from "../../sandbox/guest/prelude.js";

describe("the guest prelude", () => {
  // When the host function's promise settles, isolated-vm 5 to 7 mark the wait done and then signal a
  // condition variable that the waiting thread may already have freed (Scheduler::AsyncWait::Done): the
  // host thread hung in that signal, or the process crashed, about one bench try in ten.
  it("never waits inside isolated-vm's applySyncPromise, whose host side can signal freed memory", () => {
    expect(preludeSource()).not.toContain("applySyncPromise");
  });
});
