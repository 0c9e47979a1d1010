// The folders follow the process boundary (docs/architecture.md): a run goes src/codemode ->
// environments/<driver> -> sandbox/ and back, never back and forth. These tests hold the lines that
// make it so, over the real sources; the first block checks that the checker itself can see a breach.
import { resolve } from "node:path";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";
import {
  edgesWhere,
  findCycles,
  graphOf,
  type ImportGraph,
  isUnder,
  readImportGraph,
} from "./import-graph.js";

const root = resolve(import.meta.dirname, "../..");
const graph = readImportGraph(root, ["common", "src", "sandbox", "environments"]);

/**
 * The leaf helpers in common/, which anything may import, sandbox/ included: they import nothing of the
 * house but one another, so importing one brings nothing else along.
 */
const LEAVES = [
  "common/errors.ts",
  "common/failures.ts",
  "common/version.ts",
  "common/package-files.ts",
  "common/numbers.ts",
  "common/node-builtins.ts",
  "common/runtime.ts",
  "common/abort.ts",
  "common/promise-like.ts",
];

/**
 * The modules of src/ that name a driver in environments/: the default environment's (src/defaults.ts,
 * for the root entry) and the entries of the others, one driver each.
 */
const DRIVER_ENTRIES = [
  "src/defaults.ts",
  "src/entries/in-process.ts",
  "src/entries/quickjs.ts",
  "src/entries/docker.ts",
  "src/entries/remote.ts",
];
/** The drivers one at a time, loaded when asked for (the `cordon` command's door to them). */
const LAZY_DRIVERS = "src/load-driver.ts";

/**
 * The clients of the stores and engines that durable runs use (node-postgres, the DBOS SDK, the Restate SDK): optional
 * peers, which only their adapters in src/durable/ may import, so that nothing else of cordon needs them
 * installed. (The Postgres journal imports none: the host gives it its pool, typed by what the journal
 * uses.)
 */
const ENGINE_PACKAGES = ["pg", "@dbos-inc/dbos-sdk", "@restatedev/restate-sdk"];
/** A package's name from an import of it or of one of its files (`@scope/name/file` → `@scope/name`). */
const packageOf = (name: string) => /^(@[^/]+\/[^/]+|[^/]+)/.exec(name)?.[1] ?? name;

/**
 * The packages code in sandbox/ may use: Node's own modules, isolated-vm (installed beside the program
 * in the image), and acorn (bundled into it: the isolate engine reads the code's top-level names).
 */
const SANDBOX_PACKAGES = ["isolated-vm", "acorn"];
const sandboxPackage = (name: string) => name.startsWith("node:") || SANDBOX_PACKAGES.includes(name);

/**
 * The graph of folders: a top-level folder (common, sandbox, environments) or a folder of src/ (files
 * directly in src/ stand for themselves), with an arrow where a file of one imports a file of another.
 */
function folderGraph(files: ImportGraph): ImportGraph {
  const folderOf = (file: string) => {
    const parts = file.split("/");
    if (parts[0] !== "src") return parts[0]!;
    return parts.length > 2 ? `src/${parts[1]}` : file;
  };
  const imports = new Map<string, string[]>();
  for (const [file, targets] of files.imports) {
    const from = folderOf(file);
    const arrows = imports.get(from) ?? [];
    for (const target of targets) {
      const to = folderOf(target);
      if (to !== from && !arrows.includes(to)) arrows.push(to);
    }
    imports.set(from, arrows);
  }
  return { imports, packages: new Map(), unresolved: [] };
}

describe("the import checker", () => {
  it("sees a loop of type-only imports between two files", () => {
    const loop = graphOf(
      new Map([
        ["a/one.ts", 'import type { Two } from "./two.js";\nexport type One = { two?: Two };\n'],
        ["a/two.ts", 'import { type One } from "./one.js";\nexport type Two = { one?: One };\n'],
        ["a/three.ts", 'export * from "./one.js";\n'],
      ]),
    );
    expect(findCycles(loop)).toEqual([["a/one.ts", "a/two.ts"]]);
  });

  it("sees re-exports and dynamic imports as imports, and packages apart", () => {
    const sources = graphOf(
      new Map([
        [
          "src/a.ts",
          'export { b } from "./b.js";\nconst c = await import("../sandbox/c.js");\nimport "zod";\n',
        ],
        ["src/b.ts", "export const b = 1;\n"],
        ["sandbox/c.ts", 'import { b } from "../src/b.js";\nexport const c = b;\n'],
      ]),
    );
    expect(sources.imports.get("src/a.ts")).toEqual(["src/b.ts", "sandbox/c.ts"]);
    expect(sources.packages.get("src/a.ts")).toEqual(["zod"]);
    expect(
      edgesWhere(
        sources,
        (file) => isUnder(file, "sandbox"),
        (target) => !isUnder(target, "sandbox"),
      ),
    ).toEqual(["sandbox/c.ts -> src/b.ts"]);
  });
});

describe("the layout", () => {
  it("reads the whole house, and every relative import names a file of it", () => {
    expect(graph.imports.size).toBeGreaterThan(120);
    expect(graph.unresolved).toEqual([]);
    for (const file of [...DRIVER_ENTRIES, LAZY_DRIVERS, "sandbox/contract/index.ts", ...LEAVES]) {
      expect(graph.imports.has(file), file).toBe(true);
    }
  });

  it("has no import cycles, type-only imports included", () => {
    expect(findCycles(graph)).toEqual([]);
  });

  it("the arrows between folders run one way: the top-level folders, and the folders of src/", () => {
    expect(findCycles(folderGraph(graph))).toEqual([]);
  });

  it("common/ holds exactly the leaf helpers, and they import nothing of the house but one another", () => {
    expect([...graph.imports.keys()].filter((file) => isUnder(file, "common")).sort()).toEqual(
      [...LEAVES].sort(),
    );
  });

  it("the leaf helpers import nothing of the house but one another", () => {
    for (const leaf of LEAVES) {
      expect(
        graph.imports.get(leaf)?.filter((target) => !LEAVES.includes(target)),
        leaf,
      ).toEqual([]);
    }
  });

  it("sandbox/ imports nothing from outside it but common/, and no package but its own few", () => {
    const inSandbox = (file: string) => isUnder(file, "sandbox");
    expect(edgesWhere(graph, inSandbox, (target) => !inSandbox(target) && !LEAVES.includes(target))).toEqual(
      [],
    );
    const packages = [...graph.packages]
      .filter(([file]) => inSandbox(file))
      .flatMap(([file, names]) =>
        names.filter((name) => !sandboxPackage(name)).map((name) => `${file}: ${name}`),
      );
    expect(packages).toEqual([]);
  });

  it("the sandbox image bundles exactly sandbox/, the leaf helpers and acorn", async () => {
    const bundle = await build({
      entryPoints: [resolve(root, "sandbox/program/main.ts")],
      bundle: true,
      platform: "node",
      format: "esm",
      external: ["isolated-vm"],
      write: false,
      metafile: true,
      logLevel: "silent",
    });
    const inputs = Object.keys(bundle.metafile.inputs);
    expect(inputs).toContain("sandbox/guest/prelude.generated.ts");
    const outside = inputs.filter(
      (input) =>
        !isUnder(input, "sandbox") && !LEAVES.includes(input) && !isUnder(input, "node_modules/acorn"),
    );
    expect(outside).toEqual([]);
  });

  it("src/ reaches the drivers in environments/ only through the driver entries and src/load-driver.ts", () => {
    expect(
      edgesWhere(
        graph,
        (file) => isUnder(file, "src") && !DRIVER_ENTRIES.includes(file) && file !== LAZY_DRIVERS,
        (target) => isUnder(target, "environments"),
      ),
    ).toEqual([]);
  });

  it("each driver's entry names that driver alone, and the default the two defaults (sandbox host, QuickJS)", () => {
    const driversOf = (entry: string) =>
      entry === "src/defaults.ts" ? ["sandbox-host", "quickjs"] : [entry.split(/[/.]/)[2]];
    expect(
      edgesWhere(
        graph,
        (file) => DRIVER_ENTRIES.includes(file),
        (target, file) =>
          isUnder(target, "environments") &&
          !driversOf(file).some((driver) => isUnder(target, `environments/${driver}`)),
      ),
    ).toEqual([]);
  });

  it("the cordon command reaches the drivers one at a time, through src/load-driver.ts", () => {
    expect(
      edgesWhere(
        graph,
        (file) => isUnder(file, "src/cli"),
        (target) =>
          isUnder(target, "src/entries") || target === "src/index.ts" || target === "src/defaults.ts",
      ),
    ).toEqual([]);
  });

  it("code mode depends on the sandbox contract only: no driver, no default, no tracing", () => {
    const forbidden = (target: string) =>
      (isUnder(target, "sandbox") && target !== "sandbox/contract/index.ts") ||
      isUnder(target, "environments") ||
      [...DRIVER_ENTRIES, "src/index.ts"].includes(target) ||
      isUnder(target, "src/dispatch/tracing");
    expect(edgesWhere(graph, (file) => isUnder(file, "src/codemode"), forbidden)).toEqual([]);
  });

  it("each driver in environments/ imports itself, the wire client, sandbox/ and the leaf helpers only", () => {
    const driverOf = (file: string) => file.split("/")[1];
    const allowed = (target: string, file: string) =>
      isUnder(target, "sandbox") ||
      LEAVES.includes(target) ||
      isUnder(target, "environments/wire") ||
      isUnder(target, `environments/${driverOf(file)}`);
    expect(
      edgesWhere(
        graph,
        (file) => isUnder(file, "environments"),
        (target, file) => !allowed(target, file),
      ),
    ).toEqual([]);
  });

  it("the adapters to external stores in src/durable/ are reached through the subpath entries only", () => {
    expect(
      edgesWhere(
        graph,
        (file) => !isUnder(file, "src/durable") && !isUnder(file, "src/entries"),
        (target) => isUnder(target, "src/durable"),
      ),
    ).toEqual([]);
  });

  it("only the adapters in src/durable/ import the stores' and engines' clients (pg, the DBOS and Restate SDKs)", () => {
    const importers = [...graph.packages]
      .filter(([, names]) => names.some((name) => ENGINE_PACKAGES.includes(packageOf(name))))
      .map(([file]) => file);
    expect(importers.filter((file) => !isUnder(file, "src/durable"))).toEqual([]);
  });

  it("the sandbox contract is entered through its one door, sandbox/contract/index.ts", () => {
    expect(
      edgesWhere(
        graph,
        (file) => !isUnder(file, "sandbox/contract"),
        (target) => isUnder(target, "sandbox/contract") && target !== "sandbox/contract/index.ts",
      ),
    ).toEqual([]);
  });

  it("the guest prelude's modules are imported by one another only: they reach the host as one bundle", () => {
    // Their top-level code captures built-ins and holds a sandbox's state: it runs inside each guest,
    // when the bundled function (sandbox/guest/prelude.generated.ts) is called, never on the host.
    const inPrelude = (file: string) => isUnder(file, "sandbox/guest/prelude");
    expect(edgesWhere(graph, (file) => !inPrelude(file), inPrelude)).toEqual([]);
    expect(graph.imports.has("sandbox/guest/prelude/index.ts")).toBe(true);
  });

  it("the agent's side never imports the guest prelude or the sandbox-host program", () => {
    expect(
      edgesWhere(
        graph,
        (file) => isUnder(file, "src"),
        (target) => isUnder(target, "sandbox/guest") || isUnder(target, "sandbox/program"),
      ),
    ).toEqual([]);
  });
});
