/**
 * Type checks of different clients take turns on a small pool of checker threads. The attack: one client
 * queues check after check of hostile type-level code (each runs to its time budget and is cut off) from
 * several session ids, and another client's plain check waits behind all of them. With per-client queues
 * served in turn, the plain check waits for at most one check of each other client, and a client alone
 * never starts a second thread.
 */

import { afterAll, describe, expect, it } from "vitest";
import { isolateEnvironment } from "../../environments/in-process/index.js";
import { FairQueue } from "../../src/codemode/typecheck/fair-queue.js";
import { MAX_TYPECHECK_WORKERS } from "../../src/codemode/typecheck/limits.js";
import {
  resolveTypeScriptFromCordon,
  typescriptPath,
} from "../../src/codemode/typecheck/resolve-typescript.js";
import { TypeChecker } from "../../src/codemode/typecheck/type-checker.js";
import { type CodeMode, type CodeRunResult, codeMode, UserError } from "../../src/index.js";
import { countingShop } from "./typecheck-fixtures.js";

/** Twenty levels of a conditional type that doubles at each: TypeScript alone takes seconds on it. */
const HOSTILE = `type T<N extends 0[], A> = N extends [0, ...infer R extends 0[]] ? T<R, [A, 1]> | T<R, [A, 2]> : A;
type X = T<[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], 0>;
const x: X = 1 as any;
return 1;`;
const PLAIN = `const o = await tools.get_order({ order_id: "A1" });\nreturn o.amount;`;
const BUDGET_MS = 1_000;

const opened: CodeMode[] = [];
afterAll(() => Promise.all(opened.map((mode) => mode.close())));

/**
 * The attack: `attack` queues hostile runs; once the first of them is answered (so that all of them were
 * prepared and queued long before), `plain` sends the other client's run. Resolves with the plain run's
 * result, how many of the attack's runs were answered after the plain run was sent and before its answer,
 * and how many were not answered yet when it came.
 */
async function plainAfterAttack(
  attack: Promise<CodeRunResult>[],
  plain: () => Promise<CodeRunResult>,
): Promise<{ result: CodeRunResult; answeredMeanwhile: number; unanswered: number; first: CodeRunResult }> {
  let answered = 0;
  for (const run of attack) void run.then(() => answered++);
  const first = await Promise.race(attack);
  const before = answered;
  const result = await plain();
  return { result, answeredMeanwhile: answered - before, unanswered: attack.length - answered, first };
}

describe("type checks of different clients", () => {
  it("one client's hostile checks from three session ids hold up another client's check by one turn of the pool at most", async () => {
    const shop = countingShop();
    const mode = codeMode({
      tools: shop.tools,
      environment: isolateEnvironment(),
      typecheck: { mode: "block", limits: { timeMs: BUDGET_MS }, workers: 2 },
    });
    opened.push(mode);
    const attack = ["a-1", "a-2", "a-3"].flatMap((session) =>
      [1, 2, 3].map(() => mode.run(HOSTILE, { session })),
    );
    const { result, answeredMeanwhile, unanswered, first } = await plainAfterAttack(attack, () =>
      mode.run(PLAIN, { session: "b" }),
    );
    expect(first.error?.message).toContain(`took longer than its budget of ${BUDGET_MS} ms`);
    expect(result.status).toBe("ok");
    expect(result.value).toBe(40);
    // B took the next thread that came free: at most one check per thread of the pool was answered while
    // it waited, and most of A's are still queued (one queue would have answered all eight first).
    expect(answeredMeanwhile).toBeLessThanOrEqual(2);
    expect(unanswered).toBeGreaterThanOrEqual(5);
    await mode.close();
    for (const run of await Promise.all(attack)) expect(run.error?.name).toBe("TypeCheckError");
    expect(shop.ran.get_order).toBe(1);
  }, 60_000);

  it("a caller-supplied client key takes its own turn, whatever the session", async () => {
    const shop = countingShop();
    const mode = codeMode({
      tools: shop.tools,
      environment: isolateEnvironment(),
      typecheck: { mode: "block", limits: { timeMs: BUDGET_MS } },
    });
    opened.push(mode);
    // One client: its checks go one at a time, on one thread; the other client's gets the second.
    const attack = [1, 2, 3, 4].map(() => mode.run(HOSTILE, { session: "shared", client: "a" }));
    const { result, answeredMeanwhile, unanswered } = await plainAfterAttack(attack, () =>
      mode.run(PLAIN, { session: "shared", client: "b" }),
    );
    expect(result.value).toBe(40);
    // At most the one check of A in flight was answered while B's thread started; A's queue is not drained.
    expect(answeredMeanwhile).toBeLessThanOrEqual(1);
    expect(unanswered).toBeGreaterThanOrEqual(2);
    await mode.close();
    await Promise.all(attack);
  }, 60_000);

  it("a client alone checks on one thread, and a hostile check is interrupted there at its budget: the thread checks the next one", async () => {
    const checker = new TypeChecker({
      typescriptPath: typescriptPath(resolveTypeScriptFromCordon, "test"),
      declarations: "declare const tools: any;",
      toolNames: {},
      limits: { timeMs: BUDGET_MS, memoryMb: 512 },
      workers: 2,
    });
    try {
      const none = { values: [], types: [] };
      const outcomes = await Promise.all([1, 2, 3].map((n) => checker.check(`return ${n};`, none, "a")));
      expect(outcomes.map((outcome) => outcome.status)).toEqual(["checked", "checked", "checked"]);
      expect(checker.threads).toBe(1);
      const hostile = checker.check(HOSTILE, none, "a");
      const next = checker.check('const n: number = "x";\nreturn n;', none, "a");
      expect(await hostile).toMatchObject({ status: "unchecked", reason: "time" });
      expect(await next).toMatchObject({
        status: "checked",
        errorCount: 1,
        diagnostics: [{ line: 1, code: 2322 }],
      });
      // The same thread: none was started in its place.
      expect(checker.threads).toBe(1);
      expect(checker.threadsStarted).toBe(1);
      // Two clients at once: the second thread starts for the other client.
      await Promise.all([checker.check("return 1;", none, "a"), checker.check("return 2;", none, "b")]);
      expect(checker.threads).toBe(2);
    } finally {
      await checker.close();
    }
  });

  it("typecheck.workers out of range is refused with what to give", () => {
    const { tools } = countingShop();
    for (const workers of [0, 1.5, MAX_TYPECHECK_WORKERS + 1]) {
      expect(() => codeMode({ tools, typecheck: { mode: "block", workers } })).toThrow(
        new UserError(
          `codeMode: typecheck.workers must be a whole number from 1 to ${MAX_TYPECHECK_WORKERS}, got ${workers}.`,
        ),
      );
    }
  });
});

describe("the per-client queues", () => {
  it("serve clients in turn, one check in flight per client, first come first served on a turn", () => {
    const queue = new FairQueue<string>();
    for (const item of ["a1", "a2", "a3"]) queue.push("a", item);
    queue.push("b", "b1");
    queue.push("b", "b2");
    queue.push("c", "c1");
    expect(queue.take()).toEqual({ client: "a", item: "a1" });
    expect(queue.take()).toEqual({ client: "b", item: "b1" });
    expect(queue.take()).toEqual({ client: "c", item: "c1" });
    // Every client has one in flight: nothing can be taken until one is done.
    expect(queue.ready).toBe(0);
    expect(queue.take()).toBeUndefined();
    queue.done("a");
    queue.done("b");
    expect(queue.take()).toEqual({ client: "a", item: "a2" });
    expect(queue.take()).toEqual({ client: "b", item: "b2" });
  });

  it("put a client that came while the others' checks ran before them when a thread comes free", () => {
    const queue = new FairQueue<string>();
    for (const client of ["a", "c"]) for (const n of [1, 2, 3]) queue.push(client, `${client}${n}`);
    expect(queue.take()?.item).toBe("a1");
    expect(queue.take()?.item).toBe("c1");
    queue.push("b", "b1");
    queue.done("c");
    expect(queue.take()?.item).toBe("b1");
    queue.done("a");
    expect(queue.take()?.item).toBe("c2");
  });

  it("give no run of turns to a client whose check ran long while others' went quickly", () => {
    const queue = new FairQueue<string>();
    for (const item of ["s1", "s2", "s3"]) queue.push("slow", item);
    expect(queue.take()?.item).toBe("s1");
    // While s1 runs, a quick client with checks waiting is served ten times.
    for (let n = 1; n <= 11; n++) queue.push("quick", `q${n}`);
    for (let n = 1; n <= 10; n++) {
      expect(queue.take()?.item).toBe(`q${n}`);
      queue.done("quick");
    }
    queue.done("slow");
    queue.push("late", "l1");
    // The slow client is owed nothing for the turns it spent in flight: one check of it, then the late one.
    expect(queue.take()?.item).toBe("s2");
    queue.done("slow");
    expect(queue.take()?.item).toBe("l1");
    // Then the slow and the quick client are on the same turn: the one waiting longer goes first.
    expect(queue.take()?.item).toBe("q11");
    expect(queue.take()?.item).toBe("s3");
  });

  it("drain hands back every waiting check", () => {
    const queue = new FairQueue<string>();
    queue.push("a", "a1");
    queue.push("a", "a2");
    queue.push("b", "b1");
    queue.take();
    expect(queue.drain().sort()).toEqual(["a2", "b1"]);
    expect(queue.ready).toBe(0);
  });
});
