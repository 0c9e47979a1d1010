// Which files of isolated-vm the sandbox image copies, for each major's layout: the installed one (the
// machine's Node: 5; the node matrix runs this file on 6 and 7 too), and fixture trees of both layouts,
// where a small node-gyp-build stands in for the real one (same contract: `path(dir)` names the addon it
// would load), so that the 6/7 layout is checked on every Node.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { UserError } from "../../common/errors.js";
import { isolatedVmFiles } from "../../environments/docker/isolated-vm-files.js";

const require = createRequire(import.meta.url);
const trees = mkdtempSync(join(tmpdir(), "cordon-ivm-layout-"));
afterAll(() => rmSync(trees, { recursive: true, force: true }));

/** Writes `files` (path → content) under a new folder of `trees`; returns its node_modules. */
function tree(name: string, files: Record<string, string>): string {
  const modules = join(trees, name, "node_modules");
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(modules, path)), { recursive: true });
    writeFileSync(join(modules, path), content);
  }
  return modules;
}

/** node-gyp-build's contract as isolated-vm 6 and 7 use it: build/Release first, else a prebuild. */
const LOADER = `
const fs = require("fs");
const path = require("path");
function load(dir) { return require(load.path(dir)); }
load.path = function (dir) {
  const built = path.join(dir, "build", "Release", "isolated_vm.node");
  if (fs.existsSync(built)) return built;
  const prebuilds = path.join(dir, "prebuilds", process.platform + "-" + process.arch);
  const found = fs.existsSync(prebuilds) && fs.readdirSync(prebuilds).find((name) => name.includes(".abi" + process.versions.modules + "."));
  if (!found) throw new Error("No native build was found for platform=" + process.platform);
  return path.join(prebuilds, found);
};
module.exports = load;
`;

const LOADER_PACKAGE = {
  "node-gyp-build/package.json": JSON.stringify({ name: "node-gyp-build", main: "index.js" }),
  "node-gyp-build/index.js": 'module.exports = require("./node-gyp-build.js");',
  "node-gyp-build/node-gyp-build.js": LOADER,
};

const LOADER_MANIFEST = JSON.stringify({
  name: "isolated-vm",
  version: "7.0.1",
  main: "isolated-vm.js",
  dependencies: { "node-gyp-build": "^4.8.4" },
});
const LOADER_ENTRY = "module.exports = require('node-gyp-build')(__dirname).ivm;";
const PREBUILD = `isolated-vm/prebuilds/${process.platform}-${process.arch}/isolated-vm.abi${process.versions.modules}.glibc.node`;

describe("docker image: the files of isolated-vm it copies", () => {
  it("names the addon this process loads for the installed isolated-vm, and files that exist", () => {
    const dir = dirname(require.resolve("isolated-vm/package.json"));
    const files = isolatedVmFiles(dir);
    require("isolated-vm");
    expect(Object.keys(require.cache)).toContain(files.addon);
    for (const file of files.isolatedVm.files) expect(existsSync(join(dir, file))).toBe(true);
    for (const file of files.loader?.files ?? [])
      expect(existsSync(join(files.loader!.dir, file))).toBe(true);
    const major = Number((require("isolated-vm/package.json") as { version: string }).version.split(".")[0]);
    expect(files.loader === undefined).toBe(major === 5);
  });

  it("isolated-vm 5: its entry, package.json and out/isolated_vm.node, with no loader", () => {
    const modules = tree("v5", {
      "isolated-vm/package.json": JSON.stringify({
        name: "isolated-vm",
        version: "5.0.4",
        main: "isolated-vm.js",
      }),
      "isolated-vm/isolated-vm.js": "module.exports = require('./out/isolated_vm').ivm;",
      "isolated-vm/out/isolated_vm.node": "addon",
    });
    const dir = join(modules, "isolated-vm");
    expect(isolatedVmFiles(dir)).toEqual({
      isolatedVm: { dir, files: ["package.json", "isolated-vm.js", join("out", "isolated_vm.node")] },
      addon: join(dir, "out", "isolated_vm.node"),
    });
  });

  it("isolated-vm 6/7 built from source: the build/Release addon, and node-gyp-build beside it", () => {
    const modules = tree("v7-built", {
      "isolated-vm/package.json": LOADER_MANIFEST,
      "isolated-vm/isolated-vm.js": LOADER_ENTRY,
      "isolated-vm/build/Release/isolated_vm.node": "addon",
      [PREBUILD]: "prebuilt addon, not chosen",
      ...LOADER_PACKAGE,
    });
    const dir = join(modules, "isolated-vm");
    const files = isolatedVmFiles(dir);
    expect(files.addon).toBe(join(dir, "build", "Release", "isolated_vm.node"));
    expect(files.isolatedVm.files).toEqual([
      "package.json",
      "isolated-vm.js",
      join("build", "Release", "isolated_vm.node"),
    ]);
    expect(files.loader?.dir).toBe(join(modules, "node-gyp-build"));
    expect(files.loader?.files.sort()).toEqual(["index.js", "node-gyp-build.js", "package.json"]);
  });

  it("isolated-vm 6/7 from the registry: the prebuild for this platform and Node", () => {
    const modules = tree("v7-prebuilt", {
      "isolated-vm/package.json": LOADER_MANIFEST,
      "isolated-vm/isolated-vm.js": LOADER_ENTRY,
      [PREBUILD]: "prebuilt addon",
      ...LOADER_PACKAGE,
    });
    const files = isolatedVmFiles(join(modules, "isolated-vm"));
    expect(files.addon).toBe(join(modules, PREBUILD));
    expect(files.isolatedVm.files).toContain(PREBUILD.slice("isolated-vm/".length));
  });

  it("says what is missing: isolated-vm 5 without its addon, 6/7 without node-gyp-build or an addon", () => {
    const v5 = tree("v5-unbuilt", {
      "isolated-vm/package.json": JSON.stringify({ name: "isolated-vm", version: "5.0.4" }),
    });
    expect(() => isolatedVmFiles(join(v5, "isolated-vm"))).toThrow(UserError);
    expect(() => isolatedVmFiles(join(v5, "isolated-vm"))).toThrow(
      /out\/isolated_vm\.node is missing.*npm rebuild/,
    );

    const noLoader = tree("v7-no-loader", { "isolated-vm/package.json": LOADER_MANIFEST });
    expect(() => isolatedVmFiles(join(noLoader, "isolated-vm"))).toThrow(
      /node-gyp-build, which loads its native addon, is not installed beside it/,
    );

    const noAddon = tree("v7-no-addon", { "isolated-vm/package.json": LOADER_MANIFEST, ...LOADER_PACKAGE });
    expect(() => isolatedVmFiles(join(noAddon, "isolated-vm"))).toThrow(
      /node-gyp-build finds none for this platform and Node \(No native build was found/,
    );
  });
});
