import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { ownFile, packagePlace } from "../common/package-files.js";
import { cordonVersion } from "../common/version.js";

const root = resolve(import.meta.dirname, "..");

describe("cordon's own files, found from its package folder", () => {
  it("from the sources: the folder whose package.json names cordon, not the build", () => {
    const place = packagePlace();
    expect(place.root).toBe(root);
    expect(place.built).toBe(false);
    expect(place.version).toBe(JSON.parse(readFileSync(join(root, "package.json"), "utf8")).version);
    expect(cordonVersion()).toBe(place.version);
  });

  it("a program started by path is its TypeScript source here, and that file exists", () => {
    const program = ownFile("sandbox/program/main.js", "sandbox/program/main.ts");
    expect(program).toEqual({ path: join(root, "sandbox/program/main.ts"), built: false });
    expect(existsSync(program.path)).toBe(true);
  });
});
