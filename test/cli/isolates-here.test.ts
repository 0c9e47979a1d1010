// Which command lines make the cordon process host isolates itself (and so need --no-node-snapshot).
import { describe, expect, it } from "vitest";
import { hostsIsolatesHere } from "../../src/cli/isolates-here.js";

describe("hostsIsolatesHere", () => {
  it("is true for --env inprocess and --env=inprocess, in any command", () => {
    expect(hostsIsolatesHere(["run", "task.ts", "--tools", "t.ts", "--env", "inprocess"])).toBe(true);
    expect(hostsIsolatesHere(["mcp", "--env=inprocess"])).toBe(true);
    expect(hostsIsolatesHere(["serve", "--env", "inprocess", "--port", "0"])).toBe(true);
  });

  it("is false for the other environments and for no --env, even with the word elsewhere", () => {
    expect(hostsIsolatesHere(["run", "task.ts", "--tools", "t.ts"])).toBe(false);
    expect(hostsIsolatesHere(["run", "task.ts", "--tools", "t.ts", "--env", "docker"])).toBe(false);
    expect(hostsIsolatesHere(["run", "inprocess", "--tools", "t.ts"])).toBe(false);
    expect(hostsIsolatesHere(["--env"])).toBe(false);
  });
});
