/**
 * The figures about discovery in README.md and docs/ are kept in step: the numbers the guide
 * repeats from code (the search limits, the default budget, the cap per run) and the token counts of the
 * big-catalog bench, computed again here the way bench/tokens.ts computes them.
 */

import { readFileSync } from "node:fs";
import { getEncoding } from "js-tiktoken";
import { describe, expect, it } from "vitest";
import { bigCatalogTokens, breakEven } from "../../bench/tokens-catalog.js";
import { MAX_DISCOVERY_CALLS } from "../../sandbox/contract/index.js";
import { DEFAULT_INLINE_BUDGET } from "../../src/codemode/code-mode.js";
import { DEFAULT_MATCH_LIMIT, MAX_MATCH_LIMIT } from "../../src/codemode/discovery/tool-index.js";

const root = new URL("../../", import.meta.url);
/** A document with its line breaks and indentation folded into single spaces. */
const read = (path: string) => readFileSync(new URL(path, root), "utf8").replace(/\s+/g, " ");
const readme = read("README.md");
const codeModeGuide = read("docs/code-mode.md");
const measurements = read("docs/measurements.md");
const encoding = getEncoding("o200k_base");
const count = (text: string) => encoding.encode(text).length;
const figure = (n: number) => n.toLocaleString("en-US");
/** Token counts move by a token or two with the run's duration printed in each report. */
const near = (stated: number, measured: number) => Math.abs(stated - measured) / measured <= 0.01;

describe("the discovery figures in README.md, docs/code-mode.md and docs/measurements.md", () => {
  it("repeat the numbers of the code", () => {
    expect(codeModeGuide).toContain(`(${DEFAULT_MATCH_LIMIT} by default, at most ${MAX_MATCH_LIMIT};`);
    expect(codeModeGuide).toContain(`\`inlineBudget\` tokens (default ${figure(DEFAULT_INLINE_BUDGET)})`);
    expect(codeModeGuide).toContain(`A run may make ${MAX_DISCOVERY_CALLS} of them`);
    expect(readme).toContain(`above ${figure(DEFAULT_INLINE_BUDGET)} tokens of declarations`);
    expect(measurements).toContain(`the default \`inlineBudget\` is ${figure(DEFAULT_INLINE_BUDGET)}`);
    expect(codeModeGuide).toContain(`\`inlineBudget\` (${figure(DEFAULT_INLINE_BUDGET)} tokens by default)`);
    expect(codeModeGuide).toContain(
      `inline up to \`inlineBudget\`, ${figure(DEFAULT_INLINE_BUDGET)} tokens,`,
    );
  });

  it("state the tokens the bench counts over the 340-tool catalog", async () => {
    const { tools, ways } = await bigCatalogTokens(count);
    expect(tools).toBe(340);
    const [direct, inline, discovery] = ways.map((way) => way.tokens) as [number, number, number];
    const row =
      /340-tool catalog, three composite tasks: discovery \/ inline declarations \/ direct calls \| ([\d,]+) \/ ([\d,]+) \/ ([\d,]+) \|/.exec(
        readme,
      );
    expect(row).not.toBeNull();
    const stated = row!.slice(1).map((text) => Number(text.replaceAll(",", "")));
    expect(
      near(stated[0]!, discovery) && near(stated[1]!, inline) && near(stated[2]!, direct),
      `${stated} vs ${[discovery, inline, direct]}`,
    ).toBe(true);
    for (const [way, tokens] of [
      ["direct tool calls", direct],
      ["run_code, declarations inline", inline],
      ["run_code, discovery (the default at this size)", discovery],
    ] as const) {
      const cell = new RegExp(`\\| ${way.replace(/[()]/g, "\\$&")} \\| ([\\d,]+) \\|`).exec(measurements);
      expect(cell, way).not.toBeNull();
      expect(near(Number(cell![1]!.replaceAll(",", "")), tokens), `${way}: ${cell![1]} vs ${tokens}`).toBe(
        true,
      );
    }
  }, 120_000);

  it("say where discovery starts to pay, as the bench finds it", async () => {
    const rows = await breakEven(count);
    const at = (tools: number) => rows.find((row) => row.tools === tools)!;
    expect(at(12).inline).toBeLessThan(at(12).search);
    expect(at(20).search).toBeLessThan(at(20).inline);
    expect(codeModeGuide).toContain(
      `up to 12 tools (~${figure(at(12).declarationTokens)} tokens of declarations), with discovery from 20 tools (~${figure(Math.round(at(20).declarationTokens / 10) * 10)} tokens) on`,
    );
    const saved = (tools: number) =>
      Math.round((100 * (at(tools).inline - at(tools).search)) / at(tools).inline);
    expect(codeModeGuide).toContain(`by ${saved(20)}% there and ${saved(80)}% at 80 tools`);
    // The budget lies past the crossing.
    expect(DEFAULT_INLINE_BUDGET).toBeGreaterThan(at(20).declarationTokens);
    for (const row of rows) {
      expect(measurements).toContain(`| ${row.tools} | ~${figure(row.declarationTokens)} |`);
    }
  }, 240_000);
});
