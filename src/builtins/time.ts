/**
 * Time for the model: the `now` tool (the current time, ISO-8601, in any IANA zone) and `currentDate()`,
 * an instruction fragment with today's date for the system prompt.
 */
import { z } from "zod";
import { UserError } from "../../common/errors.js";
import { tool } from "../tools/tool.js";

/** What the model is told a valid zone looks like. */
const TIME_ZONE_EXAMPLES = "Europe/Paris, America/New_York, Asia/Shanghai or UTC";

/** Whether `zone` is a time zone this runtime knows (an IANA name such as `Asia/Shanghai`, or `UTC`). */
function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** The zone this process runs in. */
export function localTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

function partsIn(date: Date, timeZone: string): Record<string, number> {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone,
    hourCycle: "h23",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
  }).formatToParts(date);
  const out: Record<string, number> = {};
  for (const part of parts) if (part.type !== "literal") out[part.type] = Number(part.value);
  return out;
}

const pad = (n: number, width = 2) => String(Math.abs(n)).padStart(width, "0");

/** `date` as ISO-8601 local time with its UTC offset in `timeZone`, to the second: `2025-03-09T14:05:00+08:00`. */
export function isoInZone(date: Date, timeZone: string): string {
  const p = partsIn(date, timeZone);
  const { year = 0, month = 1, day = 1, hour = 0, minute = 0, second = 0 } = p;
  const wall = Date.UTC(year, month - 1, day, hour, minute, second);
  const offsetMinutes = Math.round((wall - Math.floor(date.getTime() / 1000) * 1000) / 60_000);
  const sign = offsetMinutes < 0 ? "-" : "+";
  const offset = `${sign}${pad(Math.trunc(Math.abs(offsetMinutes) / 60))}:${pad(Math.abs(offsetMinutes) % 60)}`;
  return `${pad(year, 4)}-${pad(month)}-${pad(day)}T${pad(hour)}:${pad(minute)}:${pad(second)}${offset}`;
}

/** The `now` tool's description: it names the server's zone, so it is made when first read (see below). */
function nowDescription(): string {
  return (
    `The current date and time as ISO-8601 with the UTC offset, e.g. 2025-03-09T14:05:00+08:00. ` +
    `Without tz it is the server's time zone (${localTimeZone()}); tz takes an IANA time zone name such as ${TIME_ZONE_EXAMPLES}.`
  );
}

/**
 * The `now` tool: the current time as ISO-8601 with its UTC offset, in the zone `tz` names (an IANA
 * name) or else the server's own. An unknown zone is an argument error that shows valid names.
 */
export const now = tool({
  name: "now",
  description: "The current date and time as ISO-8601 with the UTC offset.",
  input: z.object({
    tz: z
      .string()
      .refine(isTimeZone, `must be an IANA time zone name such as ${TIME_ZONE_EXAMPLES}`)
      .optional()
      .describe(`IANA time zone name, e.g. ${TIME_ZONE_EXAMPLES}. Default: the server's zone.`),
  }),
  output: z.string(),
  readOnly: true,
  run: ({ tz }) => isoInZone(new Date(), tz ?? localTimeZone()),
});
// Asking for the local zone loads ICU's time zone data (15-30 ms), which every import of cordon would
// pay: the description is made when something first reads it instead.
let description: string | undefined;
Object.defineProperty(now, "description", {
  get: () => (description ??= nowDescription()),
  enumerable: true,
  configurable: true,
});

/**
 * An instruction fragment with today's date, for the system prompt: `Today's date is 2025-03-09
 * (Sunday, Asia/Shanghai).` Only the date, so the prompt stays the same all day and a provider's prompt
 * cache stays warm; the `now` tool gives the exact time. Throws `UserError` for an unknown zone.
 */
export function currentDate(tz?: string, at: Date = new Date()): string {
  if (tz !== undefined && !isTimeZone(tz)) {
    throw new UserError(
      `currentDate: unknown time zone ${JSON.stringify(tz)}; use an IANA name such as ${TIME_ZONE_EXAMPLES}.`,
    );
  }
  const zone = tz ?? localTimeZone();
  const date = isoInZone(at, zone).slice(0, 10);
  const weekday = new Intl.DateTimeFormat("en-US", { timeZone: zone, weekday: "long" }).format(at);
  return `Today's date is ${date} (${weekday}, ${zone}).`;
}
