// The sandbox-host program's blocking line reader (sandbox/program/sync-io.ts), over real FIFOs: a lane's
// answer is looked for without sleeping for as long as the spin says, then read with a blocking read.
import { execFileSync } from "node:child_process";
import { closeSync, constants, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BlockingLineReader, nonBlockingTwin } from "../../sandbox/program/sync-io.js";

const opened: number[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const fd of opened.splice(0)) closeSync(fd);
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A FIFO opened for reading (without waiting for a writer) and for writing: a pipe with both ends here. */
function fifo(): { read: number; write: number } {
  const dir = mkdtempSync(join(tmpdir(), "cordon-sync-io-"));
  dirs.push(dir);
  const path = join(dir, "pipe");
  execFileSync("mkfifo", [path]);
  const read = openSync(path, constants.O_RDWR);
  const write = openSync(path, constants.O_WRONLY);
  opened.push(read, write);
  return { read, write };
}

function twinOf(fd: number): number {
  const twin = nonBlockingTwin(fd);
  if (twin === undefined) throw new Error("no /proc here to open the pipe again");
  opened.push(twin);
  return twin;
}

describe("the blocking line reader's spin", () => {
  it("a line already on the pipe is taken by the spin, without the blocking read", () => {
    const pipe = fifo();
    writeSync(pipe.write, '{"type":"result"}\n');
    // The blocking descriptor is not a descriptor at all: a blocking read would throw.
    const reader = new BlockingLineReader(-1, { fd: twinOf(pipe.read), microseconds: () => 1_000 });
    expect(reader.next()).toBe('{"type":"result"}');
  });

  it("a spin that finds nothing gives way to the blocking read of the reader's own descriptor", () => {
    const quiet = fifo();
    const answered = fifo();
    writeSync(answered.write, "the answer\n");
    const reader = new BlockingLineReader(answered.read, {
      fd: twinOf(quiet.read),
      microseconds: () => 50,
    });
    expect(reader.next()).toBe("the answer");
  });

  it("a spin of 0 µs does not look at all: the blocking read comes first", () => {
    const spun = fifo();
    const blocking = fifo();
    writeSync(spun.write, "from the spin\n");
    writeSync(blocking.write, "from the blocking read\n");
    const reader = new BlockingLineReader(blocking.read, { fd: twinOf(spun.read), microseconds: () => 0 });
    expect(reader.next()).toBe("from the blocking read");
  });

  it("a pipe closed by its writer ends the reader with an error, whether it spins or blocks", () => {
    const dir = mkdtempSync(join(tmpdir(), "cordon-sync-io-"));
    dirs.push(dir);
    const path = join(dir, "pipe");
    execFileSync("mkfifo", [path]);
    const read = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    opened.push(read);
    const write = openSync(path, constants.O_WRONLY);
    writeSync(write, "last line\n");
    closeSync(write);
    const reader = new BlockingLineReader(read, { fd: twinOf(read), microseconds: () => 1_000 });
    expect(reader.next()).toBe("last line");
    expect(() => reader.next()).toThrow("the other end closed it");
  });
});
