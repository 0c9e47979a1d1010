/**
 * Inside the checker's thread: a check past its budget is interrupted where it is, and the compiler is
 * trusted again only when it answers a check whose errors are known.
 */

import { createRequire } from "node:module";
import type ts from "typescript";
import { describe, expect, it } from "vitest";
import { type CheckFindings, ModelCodeChecker } from "../../src/codemode/typecheck/checker-core.js";
import { stillSound, within } from "../../src/codemode/typecheck/interrupt.js";
import {
  resolveTypeScriptFromCordon,
  typescriptPath,
} from "../../src/codemode/typecheck/resolve-typescript.js";

const path = typescriptPath(resolveTypeScriptFromCordon, "test");
const typescript = createRequire(import.meta.url)(path) as typeof ts;
const none = { values: [], types: [] };

/** Twenty levels of a conditional type that doubles at each: TypeScript alone takes seconds on it. */
const HOSTILE = `type T<N extends 0[], A> = N extends [0, ...infer R extends 0[]] ? T<R, [A, 1]> | T<R, [A, 2]> : A;
type X = T<[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], 0>;
const x: X = 1 as any;
return 1;`;

/** A compiler left broken: it finds no error anywhere. */
class BlindChecker extends ModelCodeChecker {
  override check(): CheckFindings {
    return { diagnostics: [], errorCount: 0, declared: none };
  }
}

describe("a check in the checker's thread", () => {
  it("hostile type-level code is interrupted at the budget, and the same compiler then checks right", () => {
    const checker = new ModelCodeChecker(typescript, path, "declare const tools: {};", []);
    expect(within(500, () => checker.check({ code: HOSTILE, aliases: [], session: none }))).toEqual({
      done: false,
    });
    expect(stillSound(checker, 2_000)).toBe(true);
    const after = within(2_000, () =>
      checker.check({ code: "const s: string = 1;\nreturn s;", aliases: [], session: none }),
    );
    expect(after).toMatchObject({
      done: true,
      value: { errorCount: 1, diagnostics: [{ line: 1, code: 2322 }] },
    });
  });

  it("a compiler that no longer finds the canary's errors is not trusted again", () => {
    expect(stillSound(new BlindChecker(typescript, path, "declare const tools: {};", []), 2_000)).toBe(false);
  });

  it("a throw from the check is thrown on, not taken for the budget", () => {
    expect(() =>
      within(1_000, () => {
        throw new Error("the compiler failed");
      }),
    ).toThrow("the compiler failed");
  });
});
