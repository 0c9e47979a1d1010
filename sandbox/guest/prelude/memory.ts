/**
 * Memory the heap limit does not count: resizable ArrayBuffers are refused, and the text a sandbox may
 * hand to Intl.Segmenter (which ICU copies outside the heap) is bounded.
 */

import {
  ArrayBufferCtor,
  apply,
  construct,
  defineProperty,
  global,
  ProxyCtor,
  RangeErrorCtor,
  StringCtor,
} from "./intrinsics.js";
import { bare } from "./objects.js";

/** Characters given to Intl.Segmenter in this sandbox, and how many it may be given (the run's config). */
let icuChars = 0;
let icuBudget = 0;

/** Sets how many characters this sandbox may segment (the current run's `maxIcuChars`). */
export const setIcuBudget = (chars: number) => {
  icuBudget = chars;
};

/**
 * Installs the bounds. A resizable ArrayBuffer reserves up to its maxByteLength outside the heap and
 * commits it as it grows, unseen by the memory limit: the option is refused. The constructor is wrapped,
 * and the wrapper replaces it everywhere the code could find it (the global, the prototype's constructor).
 * ICU copies the text given to a segmenter outside the heap and keeps it as long as the segments live:
 * the characters one sandbox may segment are bounded. V8's own break iterator does the same and is not
 * standard: it is removed.
 */
export const boundMemory = () => {
  const SafeArrayBuffer: ArrayBufferConstructor = new ProxyCtor(ArrayBufferCtor, {
    construct(target, args, newTarget): object {
      const options = args[1] as { maxByteLength?: unknown } | null | undefined;
      if (typeof options === "object" && options !== null && options.maxByteLength !== undefined) {
        throw new RangeErrorCtor(
          "Resizable ArrayBuffers (the maxByteLength option) are not available in run_code: their memory is not counted by the sandbox's memory limit. Use a fixed-size ArrayBuffer.",
        );
      }
      // Only the length goes on: the options object is never read again (no second look at a getter).
      return construct(target, [args[0]], newTarget === SafeArrayBuffer ? target : newTarget);
    },
  });
  defineProperty(global, "ArrayBuffer", bare({ value: SafeArrayBuffer, writable: true, configurable: true }));
  defineProperty(
    ArrayBufferCtor.prototype,
    "constructor",
    bare({ value: SafeArrayBuffer, writable: true, configurable: true }),
  );

  const intl = global.Intl as Record<string, unknown> | undefined;
  if (intl !== undefined) delete intl.v8BreakIterator;
  const Segmenter = intl?.Segmenter as { prototype: Record<string, unknown> } | undefined;
  if (Segmenter === undefined) return;
  const segment = Segmenter.prototype.segment as (text: string) => unknown;
  const holder = {
    segment(this: unknown, input: unknown) {
      const text = StringCtor(input);
      if (icuChars + text.length > icuBudget) {
        throw new RangeErrorCtor(
          `Intl.Segmenter was given ${icuChars + text.length} characters in this sandbox, more than the ${icuBudget} it allows (the segmenter keeps its text outside the memory limit). Segment smaller pieces of text.`,
        );
      }
      icuChars += text.length;
      return apply(segment, this, [text]);
    },
  };
  defineProperty(
    Segmenter.prototype,
    "segment",
    bare({ value: holder.segment, writable: true, configurable: true }),
  );
};
