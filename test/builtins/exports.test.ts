// The built-ins are part of the public surface: every name the issue lists comes from "cordon/builtins".
import { describe, expect, it } from "vitest";
import * as builtins from "../../src/entries/builtins.js";
import { isTool } from "../../src/index.js";

describe("the built-ins' exports", () => {
  it.each([
    "webFetch",
    "HttpReader",
    "webSearch",
    "duckDuckGoSearch",
    "tavilySearch",
    "currentDate",
    "askHuman",
    "HumanChannel",
    "fence",
  ])("exports %s as a function", (name) => {
    expect(typeof (builtins as Record<string, unknown>)[name]).toBe("function");
  });

  it("exports the now tool and FENCE_NOTE", () => {
    expect(isTool(builtins.now)).toBe(true);
    expect(builtins.now.name).toBe("now");
    expect(typeof builtins.FENCE_NOTE).toBe("string");
  });

  it("gives the model the seed's snake_case names", () => {
    const channel = new builtins.HumanChannel();
    const reader = {
      read: async () => ({ url: "https://a.example/", status: 200, mediaType: "text/plain", text: "" }),
    };
    const names = [
      builtins.webFetch(reader).name,
      builtins.webSearch({ search: async () => [] }).name,
      builtins.now.name,
      builtins.askHuman(channel).name,
    ];
    expect(names).toEqual(["web_fetch", "web_search", "now", "ask_human"]);
  });
});
