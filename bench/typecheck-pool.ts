// The type checker's pool of worker threads (typecheck "block", 20 tools): the resident memory a code mode
// holds with 1, 2 and 4 warm checker threads (each with TypeScript, the lib and the declarations loaded),
// and the attack the pool is for: one client queues hostile type-level code from three session ids (nine
// checks, each interrupted at its budget), then another client's plain check is sent; how long it waits,
// against the check's time budget (before the pool, one queue per code mode: 30-34 s, docs/measurements.md).
// Each figure comes from a process of its own (a fresh heap, nothing left from the one before).
// Run: make bench (it measures the built package).

import { spawnSync } from "node:child_process";
import { availableParallelism, cpus, loadavg } from "node:os";
import { codeMode } from "cordon";
import { isolateEnvironment } from "cordon/in-process";
import { median } from "./stats.js";
import { FAULTY, FAULTY_LINE, toolset } from "./typecheck-program.js";

const ROLE = process.env.BENCH_TYPECHECK_POOL;
const ROUNDS = 3;
const BUDGET_MS = 2_000;
/** Twenty levels of a conditional type that doubles at each: TypeScript alone takes seconds on it. */
const HOSTILE = `type T<N extends 0[], A> = N extends [0, ...infer R extends 0[]] ? T<R, [A, 1]> | T<R, [A, 2]> : A;
type X = T<[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], 0>;
const x: X = 1 as any;
return 1;`;

const mb = (bytes: number) => bytes / 2 ** 20;

/** In a child: `workers` clients check at once, so that as many threads start and warm; prints the RSS. */
async function memoryChild(workers: number): Promise<void> {
  const before = process.memoryUsage().rss;
  const mode = codeMode({
    tools: toolset,
    environment: isolateEnvironment(),
    typecheck: { mode: "block", workers },
  });
  const runs = await Promise.all(
    Array.from({ length: workers }, (_, n) => mode.run(`${FAULTY}\n// ${n}`, { client: `client-${n}` })),
  );
  for (const run of runs) {
    if (run.error?.name !== "TypeCheckError" || run.diagnostics?.[0]?.line !== FAULTY_LINE) {
      throw new Error(`benchmark: unexpected result ${JSON.stringify(run).slice(0, 300)}`);
    }
  }
  await new Promise((resolve) => setTimeout(resolve, 500));
  console.log(JSON.stringify({ before: mb(before), after: mb(process.memoryUsage().rss) }));
  await mode.close();
}

/** In a child: the attack, with the default pool; prints how long the plain check waited. */
async function attackChild(): Promise<void> {
  const mode = codeMode({
    tools: toolset,
    environment: isolateEnvironment(),
    typecheck: { mode: "block", limits: { timeMs: BUDGET_MS } },
  });
  const attack = ["a-1", "a-2", "a-3"].flatMap((session) =>
    [1, 2, 3].map(() => mode.run(HOSTILE, { session })),
  );
  await Promise.race(attack);
  const sent = performance.now();
  const plain = await mode.run(`${FAULTY}\n// plain`, { session: "b" });
  const waited = performance.now() - sent;
  if (plain.error?.name !== "TypeCheckError" || plain.diagnostics?.length !== 1) {
    throw new Error(`benchmark: unexpected result ${JSON.stringify(plain).slice(0, 300)}`);
  }
  console.log(JSON.stringify({ waited }));
  await mode.close();
  process.exit(0);
}

function child(role: string): Record<string, number> {
  const result = spawnSync(process.execPath, [...process.execArgv, process.argv[1]!], {
    env: { ...process.env, BENCH_TYPECHECK_POOL: role },
    encoding: "utf8",
  });
  const line = result.stdout.trim().split("\n").at(-1) ?? "";
  if (result.status !== 0 || !line.startsWith("{")) {
    throw new Error(`benchmark child ${role} failed (${result.status}): ${result.stderr.slice(0, 2_000)}`);
  }
  return JSON.parse(line) as Record<string, number>;
}

if (ROLE === "attack") await attackChild();
else if (ROLE !== undefined) await memoryChild(Number(ROLE));
else {
  console.log(
    `type checker pool (typecheck "block", 20 tools); Node ${process.version}, ${availableParallelism()} cores (${cpus()[0]?.model ?? "?"}), load ${loadavg()[0]!.toFixed(1)}`,
  );
  for (const workers of [1, 2, 4]) {
    const added = Array.from({ length: ROUNDS }, () => {
      const { before, after } = child(String(workers));
      return after! - before!;
    });
    console.log(
      `  ${workers} warm checker thread${workers === 1 ? "" : "s"}: resident memory added, median ${median(added).toFixed(0)} MB (${added.map((m) => m.toFixed(0)).join(", ")})`,
    );
  }
  const waits = Array.from({ length: ROUNDS }, () => child("attack").waited!);
  console.log(
    `  a plain check sent while 9 hostile checks of 3 other sessions wait (budget ${BUDGET_MS} ms, 2 threads): waited median ${median(waits).toFixed(0)} ms (${waits.map((w) => w.toFixed(0)).join(", ")}), ${(median(waits) / BUDGET_MS).toFixed(2)} budgets`,
  );
}
