// The real cordon command with a cache directory of its own: a tools module is compiled once into the
// cache and imported from there while its sources stay the same; one that must run where it is goes
// through the TypeScript loader; packages come from where Node finds them from the module's place.
import { createHash } from "node:crypto";
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cordon, ensureBuilt } from "./helpers.js";

let scratch: string;
let cache: string;
let toolsCache: string;

beforeAll(() => {
  ensureBuilt();
  scratch = mkdtempSync(join(tmpdir(), "cordon-compiled-"));
  cache = join(scratch, "cache");
  toolsCache = join(cache, "cordon", "tools");
});

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** Writes the files of a tools module's folder (paths relative to it); returns the folder. */
function moduleFolder(name: string, files: Record<string, string>): string {
  const folder = join(scratch, name);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(folder, path, ".."), { recursive: true });
    writeFileSync(join(folder, path), text);
  }
  return folder;
}

/** A tools module with one tool, `value`, that returns `expression` (plain JSON Schema input). */
const toolsReturning = (expression: string, header = "") =>
  `import { tool } from "cordon";\n${header}\nexport default [tool({ name: "value", description: "The value.", input: { type: "object", properties: {} }, run: () => ${expression} })];\n`;

async function valueFrom(toolsFile: string): Promise<unknown> {
  return (await runWithCache(toolsFile, cache)).value;
}

/** The tool's value with `XDG_CACHE_HOME` at `cacheHome`, and the warnings the command printed. */
async function runWithCache(
  toolsFile: string,
  cacheHome: string,
): Promise<{ value: unknown; warnings: string[] }> {
  const { code, stdout, stderr } = await cordon(["run", "-", "--tools", toolsFile, "--json"], {
    input: "return await tools.value({});",
    env: { XDG_CACHE_HOME: cacheHome },
  });
  expect(code, stderr).toBe(0);
  return {
    value: JSON.parse(stdout).value,
    warnings: stderr.split("\n").filter((line) => line.includes("warning")),
  };
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

const cached = (extension: string) => readdirSync(toolsCache).filter((name) => name.endsWith(extension));

describe("tools modules compiled into the cache", () => {
  it("is compiled once with the files it imports; the next run imports the copy; an edit compiles it again", async () => {
    const folder = moduleFolder("edited", {
      "tools.ts": toolsReturning("word", 'import { word } from "./data.ts";'),
      "data.ts": 'const first: string = "one";\nexport const word = first;\n',
    });
    expect(await valueFrom(join(folder, "tools.ts"))).toBe("one");
    const [copy] = cached(".mjs");
    expect(cached(".mjs")).toHaveLength(1);
    const [manifest] = cached(".json");
    const inputs = (JSON.parse(readFileSync(join(toolsCache, manifest!), "utf8")) as { inputs: string[][] })
      .inputs;
    expect(inputs.map(([path]) => path).sort()).toEqual([join(folder, "data.ts"), join(folder, "tools.ts")]);
    const compiledAt = statSync(join(toolsCache, copy!)).mtimeMs;

    expect(await valueFrom(join(folder, "tools.ts"))).toBe("one");
    expect(cached(".mjs")).toEqual([copy]);
    expect(statSync(join(toolsCache, copy!)).mtimeMs).toBe(compiledAt);

    writeFileSync(join(folder, "data.ts"), 'const first: string = "two";\nexport const word = first;\n');
    expect(await valueFrom(join(folder, "tools.ts"))).toBe("two");
    expect(cached(".mjs")).toHaveLength(1);
    expect(cached(".mjs")).not.toEqual([copy]);
  });

  it("a module that reads import.meta runs where it is, through the TypeScript loader, with no copy", async () => {
    rmSync(cache, { recursive: true, force: true });
    const folder = moduleFolder("placed", {
      // tsx runs a .ts file as CommonJS outside a "type": "module" package, and cordon is ESM only.
      "package.json": JSON.stringify({ type: "module" }),
      "tools.ts": toolsReturning(
        "basename(dirname(fileURLToPath(import.meta.url)))",
        'import { basename, dirname } from "node:path";\nimport { fileURLToPath } from "node:url";',
      ),
    });
    expect(await valueFrom(join(folder, "tools.ts"))).toBe(basename(folder));
    expect(cached(".json")).toHaveLength(1);
    expect(cached(".mjs")).toEqual([]);
  });

  it("a package is imported from the file Node loads for it from the module's place (its import condition)", async () => {
    const folder = moduleFolder("packaged", {
      "tools.ts": toolsReturning("flavour", 'import { flavour } from "flavoured";'),
      "node_modules/flavoured/package.json": JSON.stringify({
        name: "flavoured",
        exports: { module: "./module.mjs", import: "./import.mjs", default: "./default.cjs" },
      }),
      "node_modules/flavoured/module.mjs": 'export const flavour = "module";\n',
      "node_modules/flavoured/import.mjs": 'export const flavour = "import";\n',
      "node_modules/flavoured/default.cjs": 'exports.flavour = "default";\n',
    });
    expect(await valueFrom(join(folder, "tools.ts"))).toBe("import");
    const copies = cached(".mjs").map((name) => readFileSync(join(toolsCache, name), "utf8"));
    expect(copies.some((text) => text.includes(join(folder, "node_modules/flavoured/import.mjs")))).toBe(
      true,
    );
  });

  it("a name tsconfig's paths map to the project's own TypeScript is bundled, not imported as a package", async () => {
    const folder = moduleFolder("aliased", {
      "tsconfig.json": JSON.stringify({ compilerOptions: { baseUrl: ".", paths: { "@lib/*": ["lib/*"] } } }),
      "tools.ts": toolsReturning("word", 'import { word } from "@lib/data";'),
      "lib/data.ts": 'const aliased: string = "aliased";\nexport const word = aliased;\n',
    });
    expect(await valueFrom(join(folder, "tools.ts"))).toBe("aliased");
  });

  it("an edit to the module's tsconfig.json compiles it again (its paths now map elsewhere)", async () => {
    const folder = moduleFolder("retargeted", {
      "tsconfig.json": JSON.stringify({ compilerOptions: { baseUrl: ".", paths: { "@lib/*": ["one/*"] } } }),
      "tools.ts": toolsReturning("word", 'import { word } from "@lib/data";'),
      "one/data.ts": 'export const word = "one";\n',
      "two/data.ts": 'export const word = "two";\n',
    });
    const toolsFile = join(folder, "tools.ts");
    expect(await valueFrom(toolsFile)).toBe("one");
    expect(await valueFrom(toolsFile)).toBe("one");
    writeFileSync(
      join(folder, "tsconfig.json"),
      JSON.stringify({ compilerOptions: { baseUrl: ".", paths: { "@lib/*": ["two/*"] } } }),
    );
    expect(await valueFrom(toolsFile)).toBe("two");
  });

  it("compiling a module removes cached copies unused for 30 days, and keeps recent ones", async () => {
    const stale = join(toolsCache, "0123456789abcdef0123456789abcdef.json");
    const recent = join(toolsCache, "fedcba9876543210fedcba9876543210.json");
    mkdirSync(toolsCache, { recursive: true });
    for (const path of [stale, recent]) writeFileSync(path, "{}");
    const longAgo = new Date(Date.now() - 31 * 24 * 60 * 60 * 1000);
    utimesSync(stale, longAgo, longAgo);
    const folder = moduleFolder("pruning", { "tools.ts": toolsReturning("7") });
    expect(await valueFrom(join(folder, "tools.ts"))).toBe(7);
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(recent)).toBe(true);
  });

  it("a copy in use is never pruned: each use marks its manifest, however old the copy is", async () => {
    const used = moduleFolder("in-use", { "tools.ts": toolsReturning("8") });
    expect(await valueFrom(join(used, "tools.ts"))).toBe(8);
    const before = readdirSync(toolsCache);
    const longAgo = new Date(Date.now() - 31 * 24 * 60 * 60 * 1000);
    for (const name of before) utimesSync(join(toolsCache, name), longAgo, longAgo);
    expect(await valueFrom(join(used, "tools.ts"))).toBe(8);
    const other = moduleFolder("another", { "tools.ts": toolsReturning("9") });
    expect(await valueFrom(join(other, "tools.ts"))).toBe(9);
    expect(await valueFrom(join(used, "tools.ts"))).toBe(8);
    const left = new Set(readdirSync(toolsCache));
    // The module just used kept its manifest and copy; every other entry made long ago is gone.
    const survivors = before.filter((name) => left.has(name));
    expect(survivors.filter((name) => name.endsWith(".json"))).toHaveLength(1);
    expect(survivors.filter((name) => name.endsWith(".mjs"))).toHaveLength(1);
  });
});

/** Another user's id: root can give files to it; any other user runs the attack with its own files. */
const OTHER_UID = 4321;

/** Makes `path` and everything under it another user's (when this process may) and writable by all. */
function handToAnotherUser(path: string): void {
  const isRoot = process.getuid?.() === 0;
  for (const name of ["", ...readdirSync(path, { recursive: true, encoding: "utf8" })]) {
    const entry = join(path, name);
    chmodSync(entry, statSync(entry).isDirectory() ? 0o777 : 0o666);
    if (isRoot) chownSync(entry, OTHER_UID, OTHER_UID);
  }
}

describe("a cache folder cordon does not own alone", () => {
  it("another user's cordon/tools, made first in a shared sticky XDG_CACHE_HOME with a manifest under the predictable name, is never used: their module is not imported, the module is compiled without the cache, and one warning names the folder", async () => {
    const folder = moduleFolder("hijacked", { "tools.ts": toolsReturning('"genuine"') });
    const toolsFile = join(folder, "tools.ts");
    // What the attacker needs is predictable: the manifest a run of this module writes, and its copy.
    const primer = join(scratch, "primer");
    expect((await runWithCache(toolsFile, primer)).value).toBe("genuine");
    const primed = join(primer, "cordon", "tools");
    const [manifestName] = readdirSync(primed).filter((name) => name.endsWith(".json"));
    const manifest = JSON.parse(readFileSync(join(primed, manifestName!), "utf8")) as { output: string };
    const marker = join(scratch, "planted-module-ran");
    const planted = `import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(marker)}, "ran");\n${readFileSync(join(primed, manifest.output), "utf8").replace('"genuine"', '"planted"')}`;
    const output = `${manifestName!.slice(0, -".json".length)}.${sha256(planted).slice(0, 32)}.mjs`;

    const shared = join(scratch, "shared");
    mkdirSync(shared);
    chmodSync(shared, 0o1777);
    const theirs = join(shared, "cordon", "tools");
    mkdirSync(theirs, { recursive: true });
    writeFileSync(join(theirs, output), planted);
    writeFileSync(join(theirs, manifestName!), JSON.stringify({ ...manifest, output }));
    handToAnotherUser(join(shared, "cordon"));

    const { value, warnings } = await runWithCache(toolsFile, shared);
    expect(value).toBe("genuine");
    expect(existsSync(marker)).toBe(false);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`${join(shared, "cordon")} `);
    expect(warnings[0]).toContain("set XDG_CACHE_HOME to a folder of your own");
    // Nothing of this user's went into their folder.
    expect(readdirSync(theirs).sort()).toEqual([manifestName, output].sort());
  });

  it("a shared sticky XDG_CACHE_HOME (as /tmp is) holds a cache of the user's own: made private, then used", async () => {
    const sticky = join(scratch, "sticky");
    mkdirSync(sticky);
    chmodSync(sticky, 0o1777);
    const folder = moduleFolder("in-sticky", { "tools.ts": toolsReturning("6") });
    expect(await runWithCache(join(folder, "tools.ts"), sticky)).toEqual({ value: 6, warnings: [] });
    const tools = join(sticky, "cordon", "tools");
    expect(statSync(join(sticky, "cordon")).mode & 0o777).toBe(0o700);
    expect(readdirSync(tools).filter((name) => name.endsWith(".mjs"))).toHaveLength(1);
  });

  it("an XDG_CACHE_HOME any user can write to and that is not sticky (where the cordon folder could be swapped after the check) is refused too", async () => {
    const open = join(scratch, "open-to-all");
    mkdirSync(open);
    chmodSync(open, 0o777);
    const folder = moduleFolder("under-open", { "tools.ts": toolsReturning("5") });
    const { value, warnings } = await runWithCache(join(folder, "tools.ts"), open);
    expect(value).toBe(5);
    expect(warnings).toEqual([
      `cordon: warning: not using the cache, because ${open} can be written by other users (mode 0777): run chmod go-w ${open}, or set XDG_CACHE_HOME to a folder of your own.`,
    ]);
    expect(existsSync(join(open, "cordon"))).toBe(false);
  });

  it("a manifest whose output is ../../victim.txt never gets that file removed when the sources change", async () => {
    const home = join(scratch, "victim-home");
    const folder = moduleFolder("victim", { "tools.ts": toolsReturning('"first"') });
    const toolsFile = join(folder, "tools.ts");
    expect((await runWithCache(toolsFile, home)).value).toBe("first");
    const tools = join(home, "cordon", "tools");
    const [manifestName] = readdirSync(tools).filter((name) => name.endsWith(".json"));
    const manifestFile = join(tools, manifestName!);
    const victim = join(home, "victim.txt");
    writeFileSync(victim, "keep me");
    writeFileSync(
      manifestFile,
      JSON.stringify({ ...JSON.parse(readFileSync(manifestFile, "utf8")), output: "../../victim.txt" }),
    );
    writeFileSync(toolsFile, toolsReturning('"second"'));
    expect((await runWithCache(toolsFile, home)).value).toBe("second");
    expect(readFileSync(victim, "utf8")).toBe("keep me");
  });

  it("a compiled copy rewritten in the cache (its content no longer the digest in its name) is compiled again, never imported", async () => {
    const home = join(scratch, "rewritten-home");
    const folder = moduleFolder("rewritten", { "tools.ts": toolsReturning('"genuine"') });
    const toolsFile = join(folder, "tools.ts");
    expect((await runWithCache(toolsFile, home)).value).toBe("genuine");
    const tools = join(home, "cordon", "tools");
    const [copy] = readdirSync(tools).filter((name) => name.endsWith(".mjs"));
    const text = readFileSync(join(tools, copy!), "utf8");
    writeFileSync(join(tools, copy!), text.replace('"genuine"', '"rewritten"'));
    expect((await runWithCache(toolsFile, home)).value).toBe("genuine");
    expect(readFileSync(join(tools, copy!), "utf8")).toBe(text);
  });
});
