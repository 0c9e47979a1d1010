/**
 * Loads a tools module: a .ts or .js file whose default export is a Toolset or an array of tools.
 * TypeScript needs no build step: the module is compiled once into the user's cache and imported from
 * there (`compiled-tools.ts`), or compiled each time when that cache is not the user's alone
 * (`cache-dir.ts`, which says so once on stderr); one that must run where it is goes through tsx
 * (esbuild underneath), scoped to the module and what it imports.
 */

import { existsSync, statSync } from "node:fs";
import { register } from "node:module";
import { extname, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { messageOf, UsageError } from "../../common/errors.js";
import { ownFile, packagePlace } from "../../common/package-files.js";
import { isTool } from "../tools/tool.js";
import type { AnyTool } from "../tools/types.js";
import { warnCacheNotUsed } from "./cache-dir.js";
import { compiledToolsModule, toolsCacheDir } from "./compiled-tools.js";
import type { Progress } from "./progress.js";

/** The file extensions a tools module may have. */
const TOOLS_MODULE_EXTENSIONS = [".ts", ".mts", ".cts", ".js", ".mjs", ".cjs"] as const;

const HOW_TO_EXPORT =
  "Its default export must be a Toolset or an array of tools, e.g. `export default new Toolset([getOrder, refund])` or `export default [getOrder, refund]`.";

/** The package entry points a tools module may import, by specifier, relative to this file's copy of cordon. */
const CORDON_ENTRIES: Record<string, string> = {
  cordon: "index.js",
  "cordon/openai": "openai.js",
  "cordon/anthropic": "anthropic.js",
  "cordon/ai-sdk": "ai-sdk.js",
};

let importScoped: ((specifier: string, parent: string) => Promise<unknown>) | undefined;

/** Loads the module at `path` (relative to the working directory) and returns its tools. */
export async function loadToolsModule(path: string): Promise<AnyTool[]> {
  const file = resolve(path);
  if (!existsSync(file) || !statSync(file).isFile()) {
    throw new UsageError(
      `--tools ${path}: no such file. Give the path of a .ts or .js tools module. ${HOW_TO_EXPORT}`,
    );
  }
  if (!(TOOLS_MODULE_EXTENSIONS as readonly string[]).includes(extname(file))) {
    throw new UsageError(
      `--tools ${path}: a tools module must be one of ${TOOLS_MODULE_EXTENSIONS.join(", ")} files.`,
    );
  }
  const cache = toolsCacheDir(process.env);
  if (cache !== undefined && "problem" in cache) warnCacheNotUsed(cache.problem);
  let loaded: unknown;
  try {
    const compiled = await compiledToolsModule(
      file,
      cordonTargets(),
      cache !== undefined && "path" in cache ? cache.path : undefined,
    );
    loaded =
      compiled === undefined
        ? await (await loader())(pathToFileURL(file).href, import.meta.url)
        : await import(compiled);
  } catch (error) {
    throw new UsageError(`--tools ${path}: the module failed to load: ${messageOf(error)}`);
  }
  return toolsFrom(defaultExport(loaded), path);
}

/** The tools of a module's default export; a {@link UsageError} says what is wrong with it. */
function toolsFrom(exported: unknown, path: string): AnyTool[] {
  let items: unknown[];
  if (Array.isArray(exported)) items = exported;
  else if (isToolsetLike(exported)) items = exported.list();
  else if (exported === undefined)
    throw new UsageError(`--tools ${path}: the module has no default export. ${HOW_TO_EXPORT}`);
  else throw new UsageError(`--tools ${path}: the default export is ${describe(exported)}. ${HOW_TO_EXPORT}`);
  if (items.length === 0)
    throw new UsageError(`--tools ${path}: the default export has no tools. ${HOW_TO_EXPORT}`);
  items.forEach((item, index) => {
    if (!isTool(item)) {
      throw new UsageError(
        `--tools ${path}: item ${index + 1} of the default export is ${describe(item)}, not a tool. Make each one with tool() from cordon.`,
      );
    }
  });
  return items as AnyTool[];
}

/** A Toolset, also one from another copy of cordon (so not `instanceof` this copy's class). */
function isToolsetLike(value: unknown): value is { list(): unknown[] } {
  return (
    typeof value === "object" && value !== null && typeof (value as { list?: unknown }).list === "function"
  );
}

/** The default export; a CommonJS module's `module.exports` arrives as `default` (unwrapped once more for interop). */
function defaultExport(loaded: unknown): unknown {
  const value = (loaded as { default?: unknown }).default;
  if (
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    !isToolsetLike(value) &&
    "default" in value
  ) {
    return (value as { default: unknown }).default;
  }
  return value;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object")
    return `an object (${Object.keys(value).slice(0, 5).join(", ") || "no keys"})`;
  return `a ${typeof value}`;
}

/** The URLs of this copy's package entry points, by specifier (none when running from the sources). */
function cordonTargets(): Record<string, string> {
  const targets: Record<string, string> = {};
  if (!packagePlace().built) return targets;
  for (const [specifier, entry] of Object.entries(CORDON_ENTRIES)) {
    const file = ownFile(entry, entry);
    if (existsSync(file.path)) targets[specifier] = pathToFileURL(file.path).href;
  }
  return targets;
}

/** tsx's import scoped to tools modules, with `cordon` pinned to this copy; set up once per process. */
async function loader(): Promise<(specifier: string, parent: string) => Promise<unknown>> {
  if (importScoped) return importScoped;
  const { register: registerTsx } = await import("tsx/esm/api");
  const api = registerTsx({ namespace: "cordon-tools" });
  const targets = cordonTargets();
  // Registered after tsx, so it runs first (hooks run last-registered first).
  if (Object.keys(targets).length > 0) {
    const hook = ownFile("src/cli/cordon-resolve-hook.js", "src/cli/cordon-resolve-hook.ts");
    register(pathToFileURL(hook.path), { data: { targets } });
  }
  importScoped = api.import;
  return importScoped;
}

/** {@link loadToolsModule}, with a progress line while it loads (loading TypeScript can take a moment). */
export async function loadToolsShowingProgress(path: string, progress: Progress): Promise<AnyTool[]> {
  progress.show(`loading tools from ${path}`);
  try {
    return await loadToolsModule(path);
  } finally {
    progress.clear();
  }
}
