/**
 * Attack: exit the process the moment `await cm.close()` resolves, in the in-process environment, right
 * after a run whose spinning code was killed by its CPU time limit. isolated-vm tears a killed isolate down
 * on a thread of its own after `dispose()` returned; a process that exits meanwhile dies with SIGSEGV
 * (Node disposes V8's platform while the teardown still uses it): 2 of 16 such processes did in the red
 * team's runs, about 1 in 8 here. close() must resolve only once nothing of the isolates is left running.
 * Each child process exits at once after close; none may die by a signal.
 */

import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const HARNESS = fileURLToPath(new URL("./fixtures/exit-after-close.ts", import.meta.url));
const CHILDREN = 50;
/** Children started together: the machine's cores, not the number of children, bound how many help. */
const BATCH = 5;

let folder: string;
let bundle: string;

// The harness is bundled once, its packages left as imports of the files Node loads from here, so each
// child starts in about half a second instead of compiling cordon's sources through tsx again.
beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), "cordon-exit-after-close-"));
  bundle = join(folder, "harness.mjs");
  await build({
    entryPoints: [HARNESS],
    outfile: bundle,
    bundle: true,
    platform: "node",
    format: "esm",
    logLevel: "silent",
    plugins: [
      {
        name: "packages-where-they-are",
        setup(setup) {
          setup.onResolve({ filter: /^[^./]/ }, async (args) => {
            if (args.pluginData === "inner" || args.path.startsWith("node:")) return undefined;
            const found = await setup.resolve(args.path, {
              kind: args.kind,
              resolveDir: args.resolveDir,
              importer: args.importer,
              pluginData: "inner",
            });
            return found.path ? { path: pathToFileURL(found.path).href, external: true } : undefined;
          });
        },
      },
    ],
  });
});

afterAll(() => {
  if (folder) rmSync(folder, { recursive: true, force: true });
});

interface Ending {
  code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
}

function exitAfterClose(): Promise<Ending> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      ["--no-node-snapshot", bundle],
      { timeout: 60_000 },
      (_error, stdout, stderr) =>
        resolve({ code: child.exitCode, signal: child.signalCode, stdout, stderr: stderr.slice(-1_000) }),
    );
  });
}

describe("a process that exits right after close() in the in-process environment", () => {
  it(`is never killed by a signal (${CHILDREN} processes, each after a killed run)`, async () => {
    const endings: Ending[] = [];
    for (let started = 0; started < CHILDREN; started += BATCH) {
      endings.push(...(await Promise.all(Array.from({ length: BATCH }, exitAfterClose))));
    }
    const died = endings.filter((ending) => ending.signal !== null || ending.code !== 0);
    expect(died).toEqual([]);
    // Each child did what the attack needs: a call in a session, then a run killed by its CPU time limit.
    expect(new Set(endings.map((ending) => ending.stdout.trim()))).toEqual(new Set(['["ok","limit"]']));
  }, 600_000);
});
