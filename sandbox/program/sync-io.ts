/**
 * Blocking line IO on raw file descriptors, for the sandbox-host program: its reports go out with
 * blocking writes, so that a report written while the model's code holds the main thread (a lane's
 * stretch) is whole in the pipe before the thread blocks for the answer; libuv's stream would queue
 * what the pipe cannot take at once and write it only when the event loop turns, which it cannot do
 * while the thread waits.
 */

import { readSync, writeSync } from "node:fs";
import { Socket } from "node:net";
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

/**
 * Switches descriptor `fd` (a pipe or a socket: the lane is the socket Node's `spawn` makes for a
 * `"pipe"`) between non-blocking reads and blocking ones, through a libuv handle that never reads from
 * it; it is left blocking. Undefined where that cannot be done.
 */
export function nonBlockingSwitch(fd: number): ((nonBlocking: boolean) => void) | undefined {
  try {
    const socket = new Socket({ fd, readable: false, writable: false });
    const handle = (socket as unknown as { _handle?: { setBlocking?(blocking: boolean): number } })._handle;
    const setBlocking = handle?.setBlocking;
    if (setBlocking === undefined) return undefined;
    // Opening the handle made the descriptor non-blocking: the reader's reads block unless it spins.
    if (setBlocking.call(handle, true) !== 0) return undefined;
    return (nonBlocking) => {
      // Held here: a socket that is collected would close the descriptor.
      void socket;
      setBlocking.call(handle, !nonBlocking);
    };
  } catch {
    return undefined;
  }
}

/**
 * How a reader looks for its next bytes before it blocks: its descriptor is made non-blocking (see
 * {@link nonBlockingSwitch}) and looked at for `microseconds()` µs (0: it blocks at once).
 */
export interface SpinBeforeBlocking {
  nonBlocking(on: boolean): void;
  microseconds(): number;
}

/** Reads lines from a blocking descriptor, one at a time, blocking the thread until each comes. */
export class BlockingLineReader {
  readonly #fd: number;
  readonly #spin: SpinBeforeBlocking | undefined;
  readonly #splitter = new LineSplitter();
  readonly #buffer = Buffer.alloc(64 * 1024);
  #lines: string[] = [];

  /** With `spin`, each read first looks for bytes without sleeping, for as long as it says. */
  constructor(fd: number, spin?: SpinBeforeBlocking) {
    this.#fd = fd;
    this.#spin = spin;
  }

  /** The next line; throws when the descriptor was closed, failed, or sent a line over the cap. */
  next(): string {
    for (;;) {
      const line = this.#lines.shift();
      if (line !== undefined) return line;
      const read = this.#spinRead() ?? readSync(this.#fd, this.#buffer, 0, this.#buffer.length, null);
      if (read === 0) throw new Error("the other end closed it");
      // A copy: the splitter keeps the start of a line that continues in the next read.
      this.#lines = this.#splitter.push(Buffer.from(this.#buffer.subarray(0, read)));
    }
  }

  /**
   * Reads what comes on the pipe within the spin's time without sleeping: the bytes read (0 when the
   * other end closed it), or undefined when nothing came (the caller then blocks). A thread that sleeps
   * must be woken, which on an idle machine costs the writer and the reader tens of µs each.
   */
  #spinRead(): number | undefined {
    const spin = this.#spin;
    if (spin === undefined) return undefined;
    const microseconds = spin.microseconds();
    if (microseconds <= 0) return undefined;
    const until = performance.now() + microseconds / 1000;
    // Each look that finds nothing throws EAGAIN: without a stack the error costs little.
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    spin.nonBlocking(true);
    try {
      do {
        try {
          return readSync(this.#fd, this.#buffer, 0, this.#buffer.length, null);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== "EAGAIN") throw error;
        }
      } while (performance.now() < until);
    } finally {
      spin.nonBlocking(false);
      Error.stackTraceLimit = stackTraceLimit;
    }
    return undefined;
  }
}
