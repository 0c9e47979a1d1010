/**
 * The token estimate that decides `discovery: "auto"` agrees with a real tokenizer (js-tiktoken's
 * o200k_base, the one the token bench counts with) on the declarations code mode writes.
 */

import { getEncoding } from "js-tiktoken";
import { describe, expect, it } from "vitest";
import { shopTools } from "../../../examples/shop-tools.js";
import { toolDeclarations } from "../../../src/codemode/declarations.js";
import { declaredToolsOf } from "../../../src/codemode/declared-tools.js";
import { ESTIMATE_TOLERANCE } from "../../../src/codemode/discovery/token-estimate.js";
import { estimateTokens } from "../../../src/entries/discovery.js";
import { Toolset } from "../../../src/index.js";
import { catalogTools } from "./catalog/index.js";

const encoding = getEncoding("o200k_base");
const declarationsOf = (toolset: Toolset) => toolDeclarations(declaredToolsOf(toolset).declared);

describe("the token estimate of declarations", () => {
  const catalog = catalogTools();
  const cases: [string, Toolset][] = [
    ["the 340-tool catalog", new Toolset(catalog)],
    ["its first 20 tools", new Toolset(catalog.slice(0, 20))],
    ["its shop namespace", new Toolset(catalog.filter((t) => t.name.startsWith("shop__")))],
    ["the three-tool shop example", shopTools],
  ];
  for (const [name, toolset] of cases) {
    it(`is within ${ESTIMATE_TOLERANCE * 100}% of o200k_base on ${name}`, () => {
      const text = declarationsOf(toolset);
      const real = encoding.encode(text).length;
      expect(Math.abs(estimateTokens(text) - real) / real).toBeLessThanOrEqual(ESTIMATE_TOLERANCE);
    });
  }
});
