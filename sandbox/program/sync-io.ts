/**
 * Blocking line IO on raw file descriptors, for the sandbox-host program: its reports go out with
 * blocking writes, so that a report written while the model's code holds the main thread (a lane's
 * stretch) is whole in the pipe before the thread blocks for the answer; libuv's stream would queue
 * what the pipe cannot take at once and write it only when the event loop turns, which it cannot do
 * while the thread waits.
 */

import { readSync, writeSync } from "node:fs";
import { LineSplitter } from "../contract/index.js";

/** How long a write waits before trying again when the pipe is full and its descriptor non-blocking. */
const FULL_PIPE_PAUSE_MS = 1;

/** Writes all of `text` to `fd`, waiting while the pipe is full. Throws when the descriptor fails. */
export function writeAllSync(fd: number, text: string): void {
  const bytes = Buffer.from(text, "utf8");
  let pause: Int32Array | undefined;
  for (let written = 0; written < bytes.length; ) {
    try {
      written += writeSync(fd, bytes, written, bytes.length - written);
    } catch (error) {
      // Someone made the descriptor non-blocking (libuv does when `process.stdout` is touched).
      if ((error as NodeJS.ErrnoException).code !== "EAGAIN") throw error;
      pause ??= new Int32Array(new SharedArrayBuffer(4));
      Atomics.wait(pause, 0, 0, FULL_PIPE_PAUSE_MS);
    }
  }
}

/** Reads lines from a blocking descriptor, one at a time, blocking the thread until each comes. */
export class BlockingLineReader {
  readonly #fd: number;
  readonly #splitter = new LineSplitter();
  readonly #buffer = Buffer.alloc(64 * 1024);
  #lines: string[] = [];

  constructor(fd: number) {
    this.#fd = fd;
  }

  /** The next line; throws when the descriptor was closed, failed, or sent a line over the cap. */
  next(): string {
    for (;;) {
      const line = this.#lines.shift();
      if (line !== undefined) return line;
      const read = readSync(this.#fd, this.#buffer, 0, this.#buffer.length, null);
      if (read === 0) throw new Error("the other end closed it");
      // A copy: the splitter keeps the start of a line that continues in the next read.
      this.#lines = this.#splitter.push(Buffer.from(this.#buffer.subarray(0, read)));
    }
  }
}
