// writeFileAtomic, the one way cordon replaces a file whole (checkpoints, the checkpoint store, compiled
// tools modules, learnt result types), on the real file system of a temporary folder.
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { writeFileAtomic } from "../../src/files/atomic-write.js";

let folder: string;

beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), "cordon-atomic-"));
});

afterEach(() => {
  vi.restoreAllMocks();
  rmSync(folder, { recursive: true, force: true });
});

describe("writeFileAtomic", () => {
  it("replaces a file's content whole and leaves nothing else in its folder", async () => {
    const path = join(folder, "state.json");
    writeFileSync(path, "old");
    await writeFileAtomic(path, "new content", { mode: 0o600 });
    expect(readFileSync(path, "utf8")).toBe("new content");
    await writeFileAtomic(path, new Uint8Array([104, 105]), { mode: 0o600 });
    expect(readFileSync(path, "utf8")).toBe("hi");
    expect(readdirSync(folder)).toEqual(["state.json"]);
  });

  it("gives the file exactly the mode asked for, whatever the umask", async () => {
    const before = process.umask(0o077);
    try {
      await writeFileAtomic(join(folder, "shared"), "x", { mode: 0o644 });
      await writeFileAtomic(join(folder, "private"), "x", { mode: 0o600 });
    } finally {
      process.umask(before);
    }
    expect(statSync(join(folder, "shared")).mode & 0o777).toBe(0o644);
    expect(statSync(join(folder, "private")).mode & 0o777).toBe(0o600);
  });

  it("many writes of one file at once all succeed, and the file holds one of them whole", async () => {
    const path = join(folder, "busy");
    const texts = Array.from({ length: 20 }, (_, i) => `write ${i} `.repeat(1_000));
    await Promise.all(texts.map((text) => writeFileAtomic(path, text, { mode: 0o600 })));
    expect(texts).toContain(readFileSync(path, "utf8"));
    expect(readdirSync(folder)).toEqual(["busy"]);
  });

  it("a write that fails leaves the target as it was and no temporary file behind", async () => {
    // A folder stands where the file would go: the rename over it fails.
    const path = join(folder, "taken");
    mkdirSync(path);
    writeFileSync(join(path, "inside"), "kept");
    await expect(writeFileAtomic(path, "new", { mode: 0o600 })).rejects.toThrow();
    expect(lstatSync(path).isDirectory()).toBe(true);
    expect(readdirSync(folder)).toEqual(["taken"]);
    expect(readFileSync(join(path, "inside"), "utf8")).toBe("kept");
  });

  it("a missing folder is an error naming the path, and nothing is created", async () => {
    await expect(writeFileAtomic(join(folder, "no", "file"), "x", { mode: 0o600 })).rejects.toThrow(
      join(folder, "no"),
    );
    expect(readdirSync(folder)).toEqual([]);
  });

  it("flushes the file to disk before the rename, and its folder after it", async () => {
    const handle = await open(folder, "r");
    const FileHandle = Object.getPrototypeOf(handle) as { sync(): Promise<void> };
    await handle.close();
    const flushed: string[] = [];
    const sync = FileHandle.sync;
    vi.spyOn(FileHandle, "sync").mockImplementation(async function (this: {
      stat(): Promise<{ isDirectory(): boolean }>;
    }) {
      const info = await this.stat();
      const path = join(folder, "flushed");
      flushed.push(
        `${info.isDirectory() ? "folder" : "file"}, target ${exists(path) ? "renamed" : "not yet there"}`,
      );
      return sync.call(this);
    });
    await writeFileAtomic(join(folder, "flushed"), "x", { mode: 0o600 });
    expect(flushed).toEqual(["file, target not yet there", "folder, target renamed"]);
  });
});

function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}
