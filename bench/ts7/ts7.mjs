// TypeScript 5's JavaScript API (what cordon's checker uses) beside TypeScript 7's (the native compiler,
// `typescript/unstable/sync`: a tsgo child process driven over pipes), checking the same files in the
// same run: the ones bench/ts7/write-inputs.ts writes from cordon's own modules (lib, sandbox globals,
// the 20 tools' declarations, the 30-line program with one error, wrapped as cordon wraps it).
// Each compiler runs in a worker thread with the resource limits cordon's checker thread has.
//   cold start: a new worker thread loads the compiler, reads the files and returns the first diagnostics
//   warm check: only the program changes (a different last comment each time); the rest is reused
//     (TS 5: the parsed files and the previous program, as checker-core.ts does; TS 7: the tsgo process,
//     its project and a new snapshot with the program marked changed)
// Every check is verified: exactly one error, TS2551 on line 12 of the model's code, from both.
// Run by scripts/bench-ts7.sh in .bench-ts7/, where typescript 7 is installed: node ts7.mjs <inputs dir>

import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { getHeapStatistics } from "node:v8";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";

/** TypeScript 5 as cordon's checker drives it: files parsed once, each check a program reusing the last. */
function typescript5Checker(dir, inputs) {
  const ts = createRequire(inputs.typescript5)(inputs.typescript5);
  const files = new Map();
  for (const name of inputs.rootNames) {
    if (name === inputs.codeFile) continue;
    files.set(name, ts.createSourceFile(name, readFileSync(join(dir, name), "utf8"), ts.ScriptTarget.ES2022));
  }
  let previous;
  return {
    version: ts.version,
    optionErrors: [],
    check(text) {
      const code = ts.createSourceFile(inputs.codeFile, text, ts.ScriptTarget.ES2022, true);
      const host = {
        getSourceFile: (name) => (name === inputs.codeFile ? code : files.get(name)),
        getDefaultLibFileName: () => "lib.d.ts",
        writeFile: () => {},
        getCurrentDirectory: () => "",
        getCanonicalFileName: (name) => name,
        useCaseSensitiveFileNames: () => true,
        getNewLine: () => "\n",
        fileExists: (name) => name === inputs.codeFile || files.has(name),
        readFile: () => undefined,
      };
      const program = ts.createProgram({
        rootNames: inputs.rootNames,
        options: inputs.compilerOptions,
        host,
        ...(previous ? { oldProgram: previous } : {}),
      });
      previous = program;
      const raw = [...program.getSyntacticDiagnostics(code), ...program.getSemanticDiagnostics(code)];
      return raw
        .filter((d) => d.category === ts.DiagnosticCategory.Error)
        .map((d) => {
          const { line, character } = code.getLineAndCharacterOfPosition(d.start);
          return {
            code: d.code,
            line,
            column: character + 1,
            message: ts.flattenDiagnosticMessageText(d.messageText, " "),
          };
        });
    },
    close() {},
  };
}

/** TypeScript 7 through its sync API: one tsgo process, the project opened once, a snapshot per check. */
async function typescript7Checker(dir, inputs) {
  const { API, DiagnosticCategory } = await import(join(dir, "node_modules/typescript/dist/api/sync/api.js"));
  const version = JSON.parse(readFileSync(join(dir, "node_modules/typescript/package.json"), "utf8")).version;
  const codePath = join(dir, inputs.codeFile);
  const configPath = join(dir, "tsconfig.json");
  let current = readFileSync(codePath, "utf8");
  // The program is handed over through the virtual file system callback; every other file is read from
  // disk by tsgo itself (undefined: "use the real file system").
  const api = new API({ cwd: dir, fs: { readFile: (name) => (name === codePath ? current : undefined) } });
  let snapshot = api.updateSnapshot({ openProjects: [configPath] });
  // What TypeScript 7 refuses in the options it was given (it then uses its default for that option).
  const optionErrors = snapshot
    .getProject(configPath)
    .program.getConfigFileParsingDiagnostics()
    .map((d) => `TS${d.code}: ${flatten(d)}`);
  let first = true;
  const diagnosticsOf = (text) => {
    const program = snapshot.getProject(configPath).program;
    const raw = [...program.getSyntacticDiagnostics(codePath), ...program.getSemanticDiagnostics(codePath)];
    const starts = lineStarts(text);
    return raw
      .filter((d) => d.category === DiagnosticCategory.Error)
      .map((d) => {
        const line = lineOf(starts, d.pos);
        return { code: d.code, line, column: d.pos - starts[line] + 1, message: flatten(d) };
      });
  };
  return {
    version,
    optionErrors,
    check(text) {
      if (!first || text !== current) {
        current = text;
        const old = snapshot;
        snapshot = api.updateSnapshot({ fileChanges: { changed: [codePath] } });
        old.dispose();
      }
      first = false;
      return diagnosticsOf(text);
    },
    close() {
      snapshot.dispose();
      api.close();
    },
  };
}

function flatten(d) {
  return [d.text, ...(d.messageChain ?? []).map(flatten)].join(" ");
}
function lineStarts(text) {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === "\n") starts.push(i + 1);
  return starts;
}
function lineOf(starts, pos) {
  let line = 0;
  while (line + 1 < starts.length && starts[line + 1] <= pos) line++;
  return line;
}

const checkers = { "TS 5": typescript5Checker, "TS 7": typescript7Checker };

// In a worker thread, as cordon's checker runs (the sync API blocks its thread for each request).
// "cold": load the compiler, read the files, the first check's diagnostics, then end. "warm": check the
// texts it is sent, timing each check, until it is told to stop.
if (!isMainThread) {
  const { which, dir, inputs, mode } = workerData;
  const start = performance.now();
  const checker = await checkers[which](dir, inputs);
  if (mode === "cold") {
    const diagnostics = checker.check(readFileSync(join(dir, inputs.codeFile), "utf8"));
    const inside = performance.now() - start;
    checker.close();
    parentPort.postMessage({ diagnostics, inside, optionErrors: checker.optionErrors });
  } else {
    parentPort.on("message", (texts) => {
      if (texts === null) {
        const heapMb = getHeapStatistics().used_heap_size / 2 ** 20;
        checker.close();
        parentPort.postMessage({ heapMb });
        parentPort.close();
        return;
      }
      const results = texts.map((text) => {
        const begin = performance.now();
        const diagnostics = checker.check(text);
        return { ms: performance.now() - begin, diagnostics };
      });
      parentPort.postMessage(results);
    });
    parentPort.postMessage("ready");
  }
} else {
  await main();
}

/** A worker thread of the harness with the resource limits cordon's checker thread has. */
function startWorker(which, dir, inputs, mode) {
  const worker = new Worker(new URL(import.meta.url), {
    workerData: { which, dir, inputs, mode },
    resourceLimits: inputs.resourceLimits,
  });
  const next = () =>
    new Promise((resolve, reject) => {
      worker.once("message", resolve);
      worker.once("error", reject);
    });
  return { worker, next };
}

/** The resident memory of this process's tsgo children, in MB (Linux `ps`), or undefined. */
function tsgoResidentMb() {
  try {
    const out = execFileSync("ps", ["-o", "rss=,comm=", "--ppid", String(process.pid)], { encoding: "utf8" });
    const kb = out
      .split("\n")
      .filter((line) => /tsgo|tsc/.test(line))
      .reduce((sum, line) => sum + Number(line.trim().split(/\s+/)[0]), 0);
    return kb > 0 ? kb / 1024 : undefined;
  } catch {
    return undefined;
  }
}

async function main() {
  const dir = process.argv[2] ?? process.cwd();
  const inputs = JSON.parse(readFileSync(join(dir, "inputs.json"), "utf8"));
  const variant = (n) => inputs.faulty.replace(inputs.variantMarker, String(n));
  writeFileSync(join(dir, inputs.codeFile), variant(0));

  /** Throws unless `diagnostics` is the one expected error; returns it. */
  const verified = (which, diagnostics, what) => {
    const [d] = diagnostics;
    if (diagnostics.length !== 1 || d.code !== 2551 || d.line !== inputs.expectedLine) {
      throw new Error(
        `bench-ts7: ${which}, ${what}: expected one TS2551 on line ${inputs.expectedLine}, got ${JSON.stringify(diagnostics)}`,
      );
    }
    return d;
  };

  // 1. Cold starts, alternating, each in a new worker thread.
  const cold = { "TS 5": [], "TS 7": [] };
  const coldInside = { "TS 5": [], "TS 7": [] };
  const optionErrors = {};
  for (let round = 0; round < 5; round++) {
    for (const which of Object.keys(checkers)) {
      const start = performance.now();
      const { worker, next } = startWorker(which, dir, inputs, "cold");
      const result = await next();
      cold[which].push(performance.now() - start);
      coldInside[which].push(result.inside);
      optionErrors[which] = result.optionErrors;
      verified(which, result.diagnostics, "cold check");
      await worker.terminate();
    }
  }

  // 2. Warm checks: one worker per compiler, both alive; blocks of 50 checks alternate between them.
  const live = {};
  for (const which of Object.keys(checkers)) {
    live[which] = startWorker(which, dir, inputs, "warm");
    await live[which].next();
  }
  const first = {};
  for (const [which, { worker, next }] of Object.entries(live)) {
    worker.postMessage([inputs.clean, variant(0)]);
    const [clean, faulty] = await next();
    if (clean.diagnostics.length !== 0) {
      throw new Error(
        `bench-ts7: ${which} found errors in the clean program: ${JSON.stringify(clean.diagnostics)}`,
      );
    }
    first[which] = verified(which, faulty.diagnostics, "first warm check");
  }
  let n = 1;
  const warm = { "TS 5": [], "TS 7": [] };
  for (let round = 0; round < 7; round++) {
    for (const [which, { worker, next }] of Object.entries(live)) {
      worker.postMessage(Array.from({ length: 50 }, () => variant(n++)));
      for (const { ms, diagnostics } of await next()) {
        verified(which, diagnostics, "warm check");
        if (round > 0) warm[which].push(ms); // round 0 warms up
      }
    }
  }
  const tsgoMb = tsgoResidentMb();
  const heapMb = {};
  for (const [which, { worker, next }] of Object.entries(live)) {
    worker.postMessage(null);
    heapMb[which] = (await next()).heapMb;
  }

  const quantile = (values, q) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  };
  const ms = (v) => `${v.toFixed(1)} ms`;
  const ts7Version = JSON.parse(
    readFileSync(join(dir, "node_modules/typescript/package.json"), "utf8"),
  ).version;
  console.log(
    `bench-ts7: typescript ${inputs.typescript5Version} (JavaScript API) and ${ts7Version} (unstable/sync API, tsgo), same files, same run, ${process.version}`,
  );
  for (const [which, errors] of Object.entries(optionErrors)) {
    for (const error of errors) console.log(`  ${which} refused an option (left at its default): ${error}`);
  }
  console.log("  the faulty program's diagnostic (line and column in the model's code):");
  for (const [which, d] of Object.entries(first)) {
    console.log(`    ${which}: TS${d.code} line ${d.line} column ${d.column}: ${d.message}`);
  }
  console.log("  the clean program: no error from either");
  for (const which of Object.keys(checkers)) {
    console.log(
      `  ${which} cold start (new worker thread to first diagnostics), median ${ms(quantile(cold[which], 0.5))} (${cold[which].map((v) => v.toFixed(0)).join(", ")}); of it, compiler loaded + files read + first check: ${ms(quantile(coldInside[which], 0.5))}`,
    );
  }
  const p50 = {};
  for (const which of Object.keys(checkers)) {
    p50[which] = quantile(warm[which], 0.5);
    console.log(
      `  ${which} warm check: p50 ${ms(p50[which])}, p95 ${ms(quantile(warm[which], 0.95))} (${warm[which].length} checks, each verified)`,
    );
  }
  console.log(`  warm p50, TS 7 / TS 5: ${(p50["TS 7"] / p50["TS 5"]).toFixed(2)}x`);
  console.log(
    `  memory when warm: TS 5 worker heap ${heapMb["TS 5"].toFixed(0)} MB; TS 7 worker heap ${heapMb["TS 7"].toFixed(0)} MB + tsgo process RSS ${tsgoMb === undefined ? "unknown" : `${tsgoMb.toFixed(0)} MB`}`,
  );
  console.log("bench-ts7: report complete");
}
