// The house's import graph, read from the sources with TypeScript's own pre-processor (no type
// checking): which file imports which, type-only imports included, and which packages each file uses.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, posix, relative } from "node:path";
import ts from "typescript";

/** Files by their path from the repository root (`src/index.ts`), and what each imports. */
export interface ImportGraph {
  /** Every file read, with the files it imports (relative imports, resolved to files of the graph). */
  readonly imports: ReadonlyMap<string, readonly string[]>;
  /** The packages each file imports (`zod`, `node:fs`, ...). */
  readonly packages: ReadonlyMap<string, readonly string[]>;
  /** Relative imports that name no file of the graph, as "file -> specifier". */
  readonly unresolved: readonly string[];
}

/** Reads every `.ts` file under `folders` of `root` (declaration files and tests' fixtures left out). */
export function readImportGraph(root: string, folders: readonly string[]): ImportGraph {
  const files = folders.flatMap((folder) => listTypeScript(root, folder));
  return graphOf(new Map(files.map((file) => [file, readFileSync(join(root, file), "utf8")])));
}

/** The graph of a set of sources given as text, by path: what readImportGraph does after reading. */
export function graphOf(sources: ReadonlyMap<string, string>): ImportGraph {
  const imports = new Map<string, string[]>();
  const packages = new Map<string, string[]>();
  const unresolved: string[] = [];
  for (const [file, text] of sources) {
    const own: string[] = [];
    const external: string[] = [];
    for (const { fileName } of ts.preProcessFile(text, true, true).importedFiles) {
      if (!fileName.startsWith(".")) {
        external.push(fileName);
        continue;
      }
      const target = resolveImport(file, fileName, sources);
      if (target) own.push(target);
      else unresolved.push(`${file} -> ${fileName}`);
    }
    imports.set(file, [...new Set(own)]);
    packages.set(file, [...new Set(external)]);
  }
  return { imports, packages, unresolved };
}

/** Every import cycle: each is a list of files that reach each other (a self-import is one of one). */
export function findCycles(graph: ImportGraph): string[][] {
  // Tarjan's strongly connected components.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let next = 0;
  const visit = (file: string) => {
    index.set(file, next);
    low.set(file, next);
    next++;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.imports.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || graph.imports.get(file)?.includes(file)) cycles.push(component.sort());
  };
  for (const file of graph.imports.keys()) if (!index.has(file)) visit(file);
  return cycles;
}

/** Every import edge `from -> to` where `from` matches `where` and `to` matches `forbidden`. */
export function edgesWhere(
  graph: ImportGraph,
  where: (file: string) => boolean,
  forbidden: (target: string, file: string) => boolean,
): string[] {
  const found: string[] = [];
  for (const [file, targets] of graph.imports) {
    if (!where(file)) continue;
    for (const target of targets) if (forbidden(target, file)) found.push(`${file} -> ${target}`);
  }
  return found;
}

/** Whether `file` is `folder` itself or inside it (`folder` without a trailing slash). */
export function isUnder(file: string, folder: string): boolean {
  return file === folder || file.startsWith(`${folder}/`);
}

function resolveImport(
  from: string,
  specifier: string,
  sources: ReadonlyMap<string, string>,
): string | undefined {
  const base = posix.normalize(posix.join(posix.dirname(from), specifier));
  const candidates = [base, base.replace(/\.js$/, ".ts"), `${base}.ts`, `${base}/index.ts`];
  return candidates.find((candidate) => sources.has(candidate));
}

function listTypeScript(root: string, folder: string): string[] {
  const dir = join(root, folder);
  if (!existsSync(dir)) return [];
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith(".ts") || entry.name.endsWith(".d.ts")) continue;
    found.push(relative(root, join(entry.parentPath, entry.name)).split("\\").join("/"));
  }
  return found.sort();
}
