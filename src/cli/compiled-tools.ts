/**
 * A tools module compiled once into a plain ES module in the user's cache, so that later commands import
 * it directly: no TypeScript loader, whose module hooks run in a thread of their own that every later
 * import of the process would go through, and no esbuild either while the sources stay the same.
 *
 * esbuild bundles the module with its own files (TypeScript or JavaScript); every package it imports
 * stays an import, of the very file Node would load from the module's place (`cordon` and its subpaths
 * of the copy that runs the command). A module this cannot reproduce faithfully (CommonJS, `require`,
 * `import.meta`, `__dirname`, a build warning or error) is left to the TypeScript loader, which runs it
 * where it is; that answer is cached too. Without a cache folder that is the user's alone (see
 * cache-dir.ts), the module is compiled each time and imported from memory.
 */

import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rm, stat, utimes } from "node:fs/promises";
import { isBuiltin } from "node:module";
import { dirname, isAbsolute, join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Plugin } from "esbuild";
import { cordonVersion } from "../../common/version.js";
import { writeFileAtomic } from "../files/atomic-write.js";
import { type CacheFolder, cacheFolder } from "./cache-dir.js";

/**
 * Cached copies not used for this long are removed when a module is compiled: copies of modules that
 * moved or were deleted. Every use sets its manifest's time, so a copy in use is never removed.
 */
const UNUSED_AFTER_MS = 30 * 24 * 60 * 60 * 1000;

/** Bumped when what the cache holds changes shape, so that older entries are not read. */
const CACHE_FORMAT = 3;

/** Hex digits of a cache key, and of the SHA-256 of a compiled copy, in its name `<key>.<digest>.mjs`. */
const KEY_HEX = 32;
const DIGEST_HEX = 32;

/** What is known about one tools module: its compiled copy, or that the loader must run it as it is. */
interface Manifest {
  format: number;
  /** The files the module is made of and the tsconfig.json files they were compiled with, with the SHA-256 of each one's content. */
  inputs: [path: string, sha256: string][];
  /** The package files the compiled copy imports: it is stale once one of them is gone. */
  externals: string[];
  /**
   * The compiled copy's file name in the cache directory, `<key>.<digest>.mjs` with the SHA-256 of its
   * content; absent when the loader must run the module.
   */
  output?: string;
}

/**
 * The cache directory of compiled tools modules, $XDG_CACHE_HOME/cordon/tools, else ~/.cache/cordon/tools,
 * once checked to be this user's alone (see {@link cacheFolder}); undefined when there is no home.
 */
export function toolsCacheDir(env: NodeJS.ProcessEnv): CacheFolder | undefined {
  return cacheFolder(env, ["tools"]);
}

/**
 * The URL of a compiled copy of the tools module `file` (an absolute path), compiled now unless the cache
 * has one for the sources as they are; undefined when the module must be run where it is by the loader.
 * Without a cache directory (none, or one refused), or when the cache cannot be written, the copy is
 * compiled each time and imported from memory. `cordon` maps the package's specifiers to this copy's
 * entry URLs.
 */
export async function compiledToolsModule(
  file: string,
  cordon: Readonly<Record<string, string>>,
  cacheDir: string | undefined,
): Promise<string | undefined> {
  if (/\.c[jt]s$/.test(file)) return undefined;
  if (cacheDir === undefined) return fromMemory(await compile(file, cordon).catch(() => undefined));
  const key = sha256(JSON.stringify([CACHE_FORMAT, cordonVersion(), process.version, file, cordon])).slice(
    0,
    KEY_HEX,
  );
  const manifestFile = join(cacheDir, `${key}.json`);
  const cached = await readManifest(manifestFile, key);
  if (cached && (await isCurrent(cached, cacheDir, key))) {
    // The manifest's time is when the copy was last used: pruning keeps the copies of recent ones.
    const now = new Date();
    await utimes(manifestFile, now, now).catch(() => {});
    return cached.output === undefined ? undefined : pathToFileURL(join(cacheDir, cached.output)).href;
  }
  let compiled: Compiled | undefined;
  try {
    compiled = await compile(file, cordon);
    const { text, ...manifest } = compiled;
    if (text !== undefined) {
      manifest.output = `${key}.${sha256(text).slice(0, DIGEST_HEX)}.mjs`;
      await writeAtomically(join(cacheDir, manifest.output), text);
    }
    if (cached?.output !== undefined && cached.output !== manifest.output) {
      await rm(join(cacheDir, cached.output), { force: true });
    }
    await writeAtomically(manifestFile, JSON.stringify(manifest));
    await pruneUnused(cacheDir);
    return manifest.output === undefined ? undefined : pathToFileURL(join(cacheDir, manifest.output)).href;
  } catch {
    // The cache cannot be written (a read-only home, a full disk): the copy comes from memory this time.
    return fromMemory(compiled);
  }
}

/** A `data:` URL of a compiled copy (its imports are absolute URLs and built-in modules), if it has one. */
function fromMemory(compiled: Compiled | undefined): string | undefined {
  const text = compiled?.text;
  return text === undefined
    ? undefined
    : `data:text/javascript;base64,${Buffer.from(text, "utf8").toString("base64")}`;
}

/** Removes the manifests not used for {@link UNUSED_AFTER_MS}, and the old copies no manifest left names. */
async function pruneUnused(cacheDir: string): Promise<void> {
  const oldest = Date.now() - UNUSED_AFTER_MS;
  const names = await readdir(cacheDir);
  const kept = new Set<string>();
  const copies: string[] = [];
  for (const name of names) {
    const path = join(cacheDir, name);
    if (!name.endsWith(".json")) {
      copies.push(name);
      continue;
    }
    if ((await modified(path)) < oldest) {
      await rm(path, { force: true });
      continue;
    }
    const output = (await readManifest(path, name.slice(0, -".json".length)))?.output;
    if (output !== undefined) kept.add(output);
  }
  for (const name of copies) {
    const path = join(cacheDir, name);
    if (!kept.has(name) && (await modified(path)) < oldest) await rm(path, { force: true });
  }
}

/** When a cache file was last written, in ms; a file another process removed counts as new. */
async function modified(path: string): Promise<number> {
  try {
    return (await stat(path)).mtimeMs;
  } catch {
    return Date.now();
  }
}

/**
 * The manifest at `path` for the module of cache key `key`; undefined when there is none, or it is not
 * one this version wrote (its compiled copy must be a file of this folder named after the key and the
 * copy's digest: a manifest naming `../../victim.txt` would have that file removed once sources change).
 */
async function readManifest(path: string, key: string): Promise<Manifest | undefined> {
  let manifest: unknown;
  try {
    manifest = JSON.parse(await readFile(path, "utf8"));
  } catch {
    return undefined;
  }
  return isManifest(manifest, key) ? manifest : undefined;
}

function isManifest(value: unknown, key: string): value is Manifest {
  if (typeof value !== "object" || value === null) return false;
  const { format, inputs, externals, output } = value as Record<string, unknown>;
  const isPath = (path: unknown): path is string => typeof path === "string" && isAbsolute(path);
  return (
    format === CACHE_FORMAT &&
    Array.isArray(inputs) &&
    inputs.every(
      (input) =>
        Array.isArray(input) &&
        input.length === 2 &&
        isPath(input[0]) &&
        typeof input[1] === "string" &&
        /^[0-9a-f]{64}$/.test(input[1]),
    ) &&
    Array.isArray(externals) &&
    externals.every(isPath) &&
    (output === undefined || (typeof output === "string" && digestOf(output, key) !== undefined))
  );
}

/** The digest in the name of a compiled copy of the module of cache key `key`, if that is its name. */
function digestOf(name: string, key: string): string | undefined {
  const [named, digest, extension, ...rest] = name.split(".");
  const hex = (text: string | undefined, length: number) =>
    text !== undefined && text.length === length && /^[0-9a-f]+$/.test(text);
  const ok = named === key && hex(key, KEY_HEX) && hex(digest, DIGEST_HEX) && extension === "mjs";
  return ok && rest.length === 0 ? digest : undefined;
}

/**
 * True when every source still has the content it was compiled from, every imported package file is
 * there, and the compiled copy still has the content its name says.
 */
async function isCurrent(manifest: Manifest, cacheDir: string, key: string): Promise<boolean> {
  for (const [path, hash] of manifest.inputs) {
    try {
      if (sha256(await readFile(path)) !== hash) return false;
    } catch {
      return false;
    }
  }
  if (!manifest.externals.every((path) => existsSync(path))) return false;
  if (manifest.output === undefined) return true;
  try {
    const digest = digestOf(manifest.output, key);
    return sha256(await readFile(join(cacheDir, manifest.output))).slice(0, DIGEST_HEX) === digest;
  } catch {
    return false;
  }
}

/** Output that runs differently from a copy than from the module's own place. */
const PLACE_BOUND = /\bimport\.meta\b|\b__require\b|\b__dirname\b|\b__filename\b/;

/** A manifest without its copy's name yet, and the copy's text when the module can run from a copy. */
type Compiled = Manifest & { text?: string };

async function compile(file: string, cordon: Readonly<Record<string, string>>): Promise<Compiled> {
  const { build } = await import("esbuild");
  const externals = new Set<string>();
  const result = await build({
    entryPoints: [file],
    bundle: true,
    write: false,
    metafile: true,
    format: "esm",
    platform: "node",
    target: `node${process.versions.node.split(".")[0]}`,
    // Node's own conditions and fields: esbuild would also try `module`, which Node never reads.
    conditions: [],
    mainFields: ["main"],
    sourcemap: "inline",
    sourcesContent: false,
    logLevel: "silent",
    absWorkingDir: dirname(file),
    plugins: [packagesWhereNodeFindsThem(cordon, externals)],
  }).catch(() => undefined);
  const sources = (result ? Object.keys(result.metafile.inputs) : [file]).map((input) =>
    join(dirname(file), input),
  );
  const inputs = [...sources, ...nearestTsconfigs(sources)];
  const compiled: Compiled = {
    format: CACHE_FORMAT,
    inputs: await Promise.all(
      inputs.map(async (path): Promise<[string, string]> => [path, sha256(await readFile(path))]),
    ),
    externals: [...externals],
  };
  const text = result?.outputFiles[0]?.text;
  const faithful =
    result !== undefined &&
    result.warnings.length === 0 &&
    Object.values(result.metafile.inputs).every((input) => input.format !== "cjs") &&
    text !== undefined &&
    !PLACE_BOUND.test(text);
  return faithful ? { ...compiled, text } : compiled;
}

/**
 * The tsconfig.json esbuild read for each source (the nearest one above it, outside node_modules): its
 * `paths`, `jsx` and decorator settings shape the output, so an edit to it compiles the module again.
 */
function nearestTsconfigs(sources: string[]): string[] {
  const found = new Set<string>();
  for (const dir of new Set(
    sources.filter((source) => !/[\\/]node_modules[\\/]/.test(source)).map(dirname),
  )) {
    for (let at = dir; at !== dirname(at); at = dirname(at)) {
      const candidate = join(at, "tsconfig.json");
      if (existsSync(candidate)) {
        found.add(candidate);
        break;
      }
    }
  }
  return [...found];
}

/**
 * Leaves every package import an import, of the file Node would load for it from the importing file's
 * place (esbuild's resolver, with Node's conditions), so the compiled copy may live anywhere.
 */
function packagesWhereNodeFindsThem(
  cordon: Readonly<Record<string, string>>,
  externals: Set<string>,
): Plugin {
  return {
    name: "cordon-packages",
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, async (args) => {
        if (args.pluginData === "inner" || args.kind === "entry-point") return undefined;
        const pinned = Object.hasOwn(cordon, args.path) ? cordon[args.path] : undefined;
        if (pinned !== undefined) return { path: pinned, external: true };
        if (isBuiltin(args.path)) return { path: args.path, external: true };
        const found = await build.resolve(args.path, {
          kind: args.kind,
          resolveDir: args.resolveDir,
          importer: args.importer,
          pluginData: "inner",
        });
        if (found.errors.length > 0 || found.external || !found.path) return { errors: found.errors };
        // A bare name that tsconfig's `paths` maps to the project's own files is bundled like them.
        if (!/[\\/]node_modules[\\/]/.test(found.path)) return undefined;
        externals.add(found.path);
        return { path: pathToFileURL(found.path).href, external: true };
      });
    },
  };
}

function sha256(data: string | Buffer): string {
  return createHash("sha256").update(data).digest("hex");
}

/** Writes a cache file in one step (readable by its owner only), making its folder when missing. */
async function writeAtomically(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await writeFileAtomic(path, text, { mode: 0o600 });
}
