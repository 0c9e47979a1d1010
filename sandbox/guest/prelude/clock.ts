/**
 * Time and randomness: recorded for runs that may pause, replayed for runs that resume.
 *
 * A run resumed after a pause runs its code again from the start, and must see what it saw before:
 * every value the sandbox's sources of nondeterminism (the clock, Math.random) handed out is recorded
 * when the run asks for it, and the values of a replayed run come back in the same order, then live
 * ones again. The wrappers are installed for every run; without a tape they only pass values through.
 */

import { MAX_RECORDED_VALUES } from "../../contract/index.js";
import type { GuestRunConfig } from "../interface.js";
import {
  apply,
  construct,
  DateCtor,
  dateNowOriginal,
  dateToStringOriginal,
  defineProperty,
  freeze,
  getOwnPropertyDescriptor,
  global,
  isArray,
  MathObject,
  mathRandomOriginal,
  ProxyCtor,
  stringify,
} from "./intrinsics.js";
import { send } from "./links.js";
import { bare, push } from "./objects.js";

/** The values a run replays and the ones it records, per source; `at` is how far the replay got. */
export interface Tape {
  replay: { now: number[]; random: number[] };
  at: { now: number; random: number };
  recording: boolean;
  /** Recorded values not yet sent to the host. */
  unsent: { now: number[]; random: number[] };
  recorded: number;
  overflow: boolean;
  /** The time zone and locale the code sees, until they are sent (see {@link zoneSeen}). */
  zone: { timeZone: string; locale: string } | undefined;
}
/** The tape of the current run, if it records or replays. */
let tape: Tape | undefined;
/** Makes `next` the current run's tape (undefined: the clock and Math.random pass values through). */
export const useTape = (next: Tape | undefined) => {
  tape = next;
};
/** The next value of a source: replayed while the tape has one, else live (and recorded if recording). */
const nextValue = (source: "now" | "random"): number => {
  const current = tape;
  if (current !== undefined) {
    const replay = current.replay[source];
    const at = current.at[source];
    if (at < replay.length) {
      current.at[source] = at + 1;
      return replay[at]!;
    }
  }
  const live = (
    source === "now" ? apply(dateNowOriginal, DateCtor, []) : apply(mathRandomOriginal, MathObject, [])
  ) as number;
  if (current?.recording === true) {
    if (current.recorded >= MAX_RECORDED_VALUES) current.overflow = true;
    else {
      current.recorded++;
      push(current.unsent[source], live);
    }
  }
  return live;
};
const nowValue = () => nextValue("now");

// Formatting "now" reads the clock inside the engine: the current time is passed in instead.
const dateTimeFormat = (global.Intl as { DateTimeFormat?: { prototype: object } } | undefined)
  ?.DateTimeFormat;

/** Installs the wrappers of Date, Date.now, Math.random and Intl.DateTimeFormat's formatting of "now". */
export const installClock = () => {
  const SafeDate: DateConstructor = new ProxyCtor(DateCtor, {
    construct(target, args, newTarget): object {
      // `new Date()` reads the clock: through the tape. With arguments it reads nothing.
      return construct(
        target,
        args.length === 0 ? [nowValue()] : args,
        newTarget === SafeDate ? target : newTarget,
      );
    },
    apply(): string {
      // `Date()` called as a function is the current time as text.
      return apply(dateToStringOriginal, construct(DateCtor, [nowValue()]), []) as string;
    },
  });
  defineProperty(
    DateCtor,
    "now",
    // Method syntax: the function's name is "now" whichever compiler built this file.
    bare({
      value: freeze({
        now() {
          return nowValue();
        },
      }).now,
      writable: true,
      configurable: true,
    }),
  );
  defineProperty(global, "Date", bare({ value: SafeDate, writable: true, configurable: true }));
  defineProperty(
    DateCtor.prototype,
    "constructor",
    bare({ value: SafeDate, writable: true, configurable: true }),
  );
  defineProperty(
    MathObject,
    "random",
    bare({
      value: freeze({
        random() {
          return nextValue("random");
        },
      }).random,
      writable: true,
      configurable: true,
    }),
  );
  if (dateTimeFormat !== undefined) wrapFormatting(dateTimeFormat.prototype);
};

/** Intl.DateTimeFormat's `format` and `formatToParts` of no date format the tape's "now". */
const wrapFormatting = (proto: object) => {
  const formatGetter = getOwnPropertyDescriptor(proto, "format")?.get;
  const formatToParts = getOwnPropertyDescriptor(proto, "formatToParts")?.value as
    | ((date?: unknown) => unknown)
    | undefined;
  if (formatGetter !== undefined) {
    defineProperty(
      proto,
      "format",
      bare({
        get(this: object) {
          const format = apply(formatGetter, this, []) as (date?: unknown) => string;
          return (date?: unknown) => format(date === undefined ? nowValue() : date);
        },
        configurable: true,
      }),
    );
  }
  if (formatToParts !== undefined) {
    defineProperty(
      proto,
      "formatToParts",
      bare({
        value: freeze({
          formatToParts(this: object, date?: unknown) {
            return apply(formatToParts, this, [date === undefined ? nowValue() : date]);
          },
        }).formatToParts,
        writable: true,
        configurable: true,
      }),
    );
  }
};

// The time zone and locale the code sees are its process's, and no run can change them: a run that
// records or replays reports them, and a resume whose sandbox sees others is refused by the host.
const resolvedOptions =
  dateTimeFormat === undefined
    ? undefined
    : (getOwnPropertyDescriptor(dateTimeFormat.prototype, "resolvedOptions")?.value as
        | (() => unknown)
        | undefined);
const zoneSeen = (): Tape["zone"] => {
  if (dateTimeFormat === undefined || resolvedOptions === undefined) return undefined;
  try {
    const formatter = construct(dateTimeFormat as unknown as new () => object, []);
    // Own data properties of a fresh object: nothing on Object.prototype can stand in for them.
    const { timeZone, locale } = apply(resolvedOptions, formatter, []) as Record<string, unknown>;
    if (typeof timeZone !== "string" || typeof locale !== "string") return undefined;
    return bare({ timeZone, locale });
  } catch {
    return undefined;
  }
};

/** The tape of a run that records or replays; undefined for one that does neither. */
export const tapeFor = (config: GuestRunConfig): Tape | undefined => {
  const replay = config.replay;
  if (config.record !== true && replay === undefined) return undefined;
  const numbers = (list: unknown): number[] => {
    const out: number[] = [];
    if (!isArray(list)) return out;
    for (let i = 0; i < list.length; i++) if (typeof list[i] === "number") push(out, list[i]);
    return out;
  };
  return {
    replay: { now: numbers(replay?.now), random: numbers(replay?.random) },
    at: { now: 0, random: 0 },
    recording: config.record === true,
    unsent: { now: bare([]), random: bare([]) },
    recorded: 0,
    overflow: false,
    zone: zoneSeen(),
  };
};

/**
 * Sends the values recorded since the last message (and, the first time, the zone), before the
 * message that follows them. A run that only replays records nothing: it sends its zone alone.
 */
export const flushTape = (runId: number) => {
  const current = tape;
  if (current === undefined) return;
  const { unsent, zone } = current;
  if (unsent.now.length === 0 && unsent.random.length === 0 && !current.overflow && zone === undefined) {
    return;
  }
  // Lists without a prototype: JSON.stringify looks up no `toJSON` the code may have set.
  current.unsent = { now: bare([]), random: bare([]) };
  current.zone = undefined;
  const values: { now?: number[]; random?: number[]; overflow?: boolean; zone?: Tape["zone"] } = bare({});
  if (unsent.now.length > 0) values.now = unsent.now;
  if (unsent.random.length > 0) values.random = unsent.random;
  if (current.overflow) values.overflow = true;
  if (zone !== undefined) values.zone = zone;
  send("values", runId, 0, "", stringify(values));
};
