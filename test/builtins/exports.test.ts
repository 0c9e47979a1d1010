// The built-ins are part of the public surface: every name the issue lists comes from "cordon".
import { describe, expect, it } from "vitest";
import * as cordon from "../../src/index.js";

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
    "UsageError",
  ])("exports %s as a function", (name) => {
    expect(typeof (cordon as Record<string, unknown>)[name]).toBe("function");
  });

  it("exports the now tool and FENCE_NOTE", () => {
    expect(cordon.isTool(cordon.now)).toBe(true);
    expect(cordon.now.name).toBe("now");
    expect(typeof cordon.FENCE_NOTE).toBe("string");
  });

  it("gives the model the seed's snake_case names", () => {
    const channel = new cordon.HumanChannel();
    const reader = {
      read: async () => ({ url: "https://a.example/", status: 200, mediaType: "text/plain", text: "" }),
    };
    const names = [
      cordon.webFetch(reader).name,
      cordon.webSearch({ search: async () => [] }).name,
      cordon.now.name,
      cordon.askHuman(channel).name,
    ];
    expect(names).toEqual(["web_fetch", "web_search", "now", "ask_human"]);
  });
});
