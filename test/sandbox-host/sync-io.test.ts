// The sandbox-host program's blocking line reader (sandbox/program/sync-io.ts): a lane's answer is looked
// for with non-blocking reads for as long as the spin says, then read with a blocking read. Over real
// FIFOs, and over the socket Node's `spawn` makes for a "pipe", which is what the lane is.
import { spawn } from "node:child_process";
import { closeSync, constants, mkdtempSync, openSync, readSync, rmSync, writeSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Writable } from "node:stream";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { BlockingLineReader, nonBlockingSwitch } from "../../sandbox/program/sync-io.js";

const opened: number[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const fd of opened.splice(0)) closeSync(fd);
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A FIFO opened for reading (without waiting for a writer) and for writing: a pipe with both ends here. */
async function openFifo(): Promise<{ read: number; write: number }> {
  const dir = mkdtempSync(join(tmpdir(), "cordon-sync-io-"));
  dirs.push(dir);
  const path = join(dir, "pipe");
  const made = spawn("mkfifo", [path]);
  await new Promise((resolve) => made.on("exit", resolve));
  const read = openSync(path, constants.O_RDWR);
  const write = openSync(path, constants.O_WRONLY);
  opened.push(read, write);
  return { read, write };
}

describe("the blocking line reader's spin", () => {
  it("a line already on the pipe is taken by the spin, and the descriptor is blocking again after", async () => {
    const pipe = await openFifo();
    const nonBlocking = nonBlockingSwitch(pipe.read);
    expect(nonBlocking).toBeDefined();
    const switched: boolean[] = [];
    const reader = new BlockingLineReader(pipe.read, {
      nonBlocking: (on) => {
        switched.push(on);
        nonBlocking?.(on);
      },
      microseconds: () => 1_000,
    });
    writeSync(pipe.write, '{"type":"result"}\n');
    expect(reader.next()).toBe('{"type":"result"}');
    expect(switched).toEqual([true, false]);
  });

  it("the switch makes reads of an empty pipe fail at once instead of blocking, and undoes it", async () => {
    const pipe = await openFifo();
    const nonBlocking = nonBlockingSwitch(pipe.read);
    nonBlocking?.(true);
    expect(() => readSync(pipe.read, Buffer.alloc(8))).toThrow(expect.objectContaining({ code: "EAGAIN" }));
    nonBlocking?.(false);
    writeSync(pipe.write, "x\n");
    expect(readSync(pipe.read, Buffer.alloc(8))).toBe(2);
  });

  it("a spin of 0 µs does not look at all: the blocking read comes first", async () => {
    const pipe = await openFifo();
    const switched: boolean[] = [];
    const reader = new BlockingLineReader(pipe.read, {
      nonBlocking: (on) => switched.push(on),
      microseconds: () => 0,
    });
    writeSync(pipe.write, "from the blocking read\n");
    expect(reader.next()).toBe("from the blocking read");
    expect(switched).toEqual([]);
  });

  it("the lane's socket (spawn's pipe) is switched, and a line sent while the reader spins reaches it", async () => {
    const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
    const fixture = join(import.meta.dirname, "fixtures", "lane-reader.ts");
    const child = spawn(process.execPath, ["--import", tsx, fixture], {
      stdio: ["ignore", "pipe", "inherit", "pipe"],
    });
    const lane = child.stdio[3] as Writable;
    let output = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      // Sent once the child says it is ready: the first line while it spins (2 s), the second after.
      if (output === "switch\n") setTimeout(() => lane.write("first\n"), 20);
      if (output === "switch\nfirst\n") lane.write("second\n");
    });
    await new Promise((resolve) => child.on("exit", resolve));
    expect(output).toBe("switch\nfirst\nsecond\n");
  });
});
