/** toolIndexText: the compact catalog index the model reads, shortened to fit a budget. */

import { describe, expect, it } from "vitest";
import {
  bestKnown,
  MAX_BEST_KNOWN_TOOLS,
  toolIndexText,
} from "../../../src/codemode/discovery/index-text.js";
import { SUMMARY_MAX_CHARS } from "../../../src/codemode/discovery/summary.js";
import { createToolIndex } from "../../../src/codemode/discovery/tool-index.js";
import { tool } from "../../../src/tools/tool.js";
import { catalogTools } from "./catalog/index.js";

const small = createToolIndex([
  tool({ name: "gh__list_issues", description: "List issues. Filters by label.", run: () => [] }),
  tool({ name: "gh__create_issue", description: "Open a new issue.\nSecond line.", run: () => ({}) }),
  tool({ name: "fs__read_file", description: "Read a file's text.", run: () => "" }),
  tool({ name: "now", description: "The current time.", run: () => "" }),
]);

describe("toolIndexText", () => {
  it("lists every tool with its first sentence, grouped by namespace with counts", () => {
    const { text, detail } = toolIndexText(small);
    expect(detail).toBe("summaries");
    expect(text).toBe(
      [
        "gh (2 tools):",
        "  gh__list_issues: List issues.",
        "  gh__create_issue: Open a new issue.",
        "fs (1 tool):",
        "  fs__read_file: Read a file's text.",
        "other (1 tool):",
        "  now: The current time.",
      ].join("\n"),
    );
  });

  it("has no headings when no tool has a namespace", () => {
    const flat = createToolIndex([tool({ name: "now", description: "The current time.", run: () => "" })]);
    expect(toolIndexText(flat).text).toBe("now: The current time.");
  });

  it("cuts a long first sentence at a word, within the summary limit", () => {
    const long = `Get ${"the very long thing ".repeat(20)}now.`;
    const index = createToolIndex([tool({ name: "get_thing", description: long, run: () => null })]);
    const line = toolIndexText(index).text;
    expect(line.length).toBeLessThanOrEqual("get_thing: ".length + SUMMARY_MAX_CHARS);
    expect(line).toMatch(/ (the|very|long|thing)…$/);
  });

  it("falls back to names, then to namespaces with their best-known tools, to fit the budget", () => {
    const index = createToolIndex(catalogTools());
    const full = toolIndexText(index);
    const names = toolIndexText(index, { budget: full.text.length - 1 });
    expect(names.detail).toBe("names");
    expect(names.text).toContain("shop (22 tools): shop__list_orders, shop__get_order,");

    const namespaces = toolIndexText(index, { budget: 3_000 });
    expect(namespaces.detail).toBe("namespaces");
    expect(namespaces.text.length).toBeLessThanOrEqual(3_000);
    const lines = namespaces.text.split("\n");
    expect(lines).toHaveLength(16);
    expect(lines[0]).toMatch(/^github \(44 tools\), e\.g\. github__\w+(, github__\w+){4}$/);

    const counts = toolIndexText(index, { budget: 300 });
    expect(counts.text.split("\n")[0]).toBe("github (44 tools)");
  });

  it("measures with the function it is given (e.g. a tokenizer)", () => {
    const words = (text: string) => text.split(/\s+/).length;
    expect(toolIndexText(small, { budget: 40, measure: words }).detail).toBe("summaries");
    expect(toolIndexText(small, { budget: 10, measure: words }).detail).not.toBe("summaries");
  });
});

describe("bestKnown", () => {
  it("prefers the tools whose name words recur in their namespace, fewer words first", () => {
    const shop = createToolIndex(catalogTools()).entries.filter((entry) => entry.namespace === "shop");
    const best = bestKnown(shop, MAX_BEST_KNOWN_TOOLS).map((entry) => entry.name);
    expect(best).toHaveLength(MAX_BEST_KNOWN_TOOLS);
    expect(best).toContain("shop__list_orders");
    expect(best).not.toContain("shop__get_customer_orders_summary");
    expect(bestKnown(shop, 0)).toEqual([]);
  });
});
