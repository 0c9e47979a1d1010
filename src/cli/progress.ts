/**
 * A progress line on standard error for steps that take a while (loading a TypeScript module, starting a
 * sandbox, running code): one line, rewritten in place, erased when the step is done. Only on a terminal;
 * piped output stays clean.
 */

/** Shows what the command is waiting for. */
export interface Progress {
  /** Shows `text` (after a short delay, so fast steps show nothing). */
  show(text: string): void;
  /** Erases the line. */
  clear(): void;
}

/** How long a step may take before its line appears, in ms. */
const SHOW_AFTER_MS = 300;

/** A progress line on `stream` when it is a terminal; otherwise one that shows nothing. */
export function progressOn(stream: NodeJS.WriteStream): Progress {
  if (!stream.isTTY) return { show() {}, clear() {} };
  let timer: NodeJS.Timeout | undefined;
  let shown = false;
  const clear = () => {
    clearTimeout(timer);
    timer = undefined;
    if (shown) stream.write("\r\u001b[2K");
    shown = false;
  };
  return {
    show(text) {
      clear();
      timer = setTimeout(() => {
        const width = Math.max(20, (stream.columns ?? 80) - 1);
        stream.write(`\r\u001b[2K${`… ${text}`.slice(0, width)}`);
        shown = true;
      }, SHOW_AFTER_MS);
      timer.unref();
    },
    clear,
  };
}
