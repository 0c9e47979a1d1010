// Whether the isolate engine can start is read from the installed files, never by loading the addon:
// here over real folders laid out as npm leaves them (not installed, installed without its build, built).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isolatedVmProblem } from "../../environments/sandbox-host/isolated-vm-check.js";

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A project folder with isolated-vm's package.json (these dependencies) in its node_modules; its entry file. */
function projectWithIsolatedVm(dependencies: Record<string, string> = {}): {
  project: string;
  entry: string;
} {
  const project = mkdtempSync(join(tmpdir(), "cordon-ivm-check-"));
  made.push(project);
  const dir = join(project, "node_modules/isolated-vm");
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ name: "isolated-vm", version: "5.0.4", main: "isolated-vm.js", dependencies }),
  );
  writeFileSync(join(dir, "isolated-vm.js"), "module.exports = require('./out/isolated_vm.node').ivm;\n");
  return { project, entry: join(project, "agent.mjs") };
}

describe("isolatedVmProblem", () => {
  it("says isolated-vm is not installed where no node_modules has it", () => {
    const project = mkdtempSync(join(tmpdir(), "cordon-ivm-check-"));
    made.push(project);
    expect(isolatedVmProblem(join(project, "agent.mjs"))).toBe("isolated-vm is not installed");
  });

  it("says its addon is not built when npm installed it without running its install script", () => {
    const { project, entry } = projectWithIsolatedVm();
    expect(isolatedVmProblem(entry)).toBe(
      `isolated-vm is installed (${join(project, "node_modules/isolated-vm")}) but its native addon is not built: npm did not run its install script (\`npm rebuild isolated-vm\` runs it)`,
    );
  });

  it("says its addon is not built when it loads it through node-gyp-build and that is missing", () => {
    const { entry } = projectWithIsolatedVm({ "node-gyp-build": "^4.8.4" });
    mkdirSync(join(entry, "../node_modules/isolated-vm/out"));
    writeFileSync(join(entry, "../node_modules/isolated-vm/out/isolated_vm.node"), "");
    expect(isolatedVmProblem(entry)).toMatch(/but its native addon is not built/);
  });

  it("finds nothing wrong once isolated-vm 5's addon is built (out/isolated_vm.node)", () => {
    const { entry } = projectWithIsolatedVm();
    mkdirSync(join(entry, "../node_modules/isolated-vm/out"));
    writeFileSync(join(entry, "../node_modules/isolated-vm/out/isolated_vm.node"), "");
    expect(isolatedVmProblem(entry)).toBeUndefined();
  });

  it("does not look again where it found the addon built, and looks again where it found a problem", () => {
    const { entry } = projectWithIsolatedVm();
    expect(isolatedVmProblem(entry)).toMatch(/but its native addon is not built/);
    const out = join(entry, "../node_modules/isolated-vm/out");
    mkdirSync(out);
    writeFileSync(join(out, "isolated_vm.node"), "");
    // Fixed while the process runs (`npm rebuild isolated-vm`): seen at the next look.
    expect(isolatedVmProblem(entry)).toBeUndefined();
    // Found built, it is not read from disk again: gone now, still found.
    rmSync(join(entry, "../node_modules"), { recursive: true });
    expect(isolatedVmProblem(entry)).toBeUndefined();
  });

  it("finds nothing wrong with the isolated-vm this checkout runs", () => {
    expect(isolatedVmProblem()).toBeUndefined();
  });
});
