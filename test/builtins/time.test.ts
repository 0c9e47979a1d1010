// The now tool and currentDate(): ISO-8601 with the right offset in any IANA zone, clear errors for bad ones.
import { describe, expect, it } from "vitest";
import { isoInZone, localTimeZone } from "../../src/builtins/time.js";
import { currentDate, now } from "../../src/entries/builtins.js";
import { Dispatcher, Toolset, UserError } from "../../src/index.js";

describe("isoInZone", () => {
  it.each([
    ["2025-03-09T06:05:00Z", "UTC", "2025-03-09T06:05:00+00:00"],
    ["2025-03-09T06:05:00Z", "Asia/Shanghai", "2025-03-09T14:05:00+08:00"],
    ["2025-03-09T06:05:00Z", "America/New_York", "2025-03-09T01:05:00-05:00"],
    ["2025-03-09T08:00:00Z", "America/New_York", "2025-03-09T04:00:00-04:00"],
    ["2025-01-15T12:00:00Z", "Asia/Kolkata", "2025-01-15T17:30:00+05:30"],
    ["2025-01-15T12:00:00Z", "America/St_Johns", "2025-01-15T08:30:00-03:30"],
    ["2025-01-15T12:00:00Z", "Pacific/Chatham", "2025-01-16T01:45:00+13:45"],
    ["2024-02-29T23:59:59.999Z", "Europe/London", "2024-02-29T23:59:59+00:00"],
  ])("%s in %s is %s", (instant, zone, expected) => {
    const iso = isoInZone(new Date(instant), zone);
    expect(iso).toBe(expected);
    expect(Math.floor(new Date(instant).getTime() / 1000) * 1000).toBe(Date.parse(iso));
  });
});

describe("the now tool", () => {
  const dispatcher = new Dispatcher(new Toolset([now]));
  const call = async (args: Record<string, unknown>) => {
    const [result] = await dispatcher.dispatch([{ id: "n", name: "now", arguments: args }]).results();
    return result!;
  };

  it("returns the current time as ISO-8601 with an offset, in the server's zone by default", async () => {
    const before = Math.floor(Date.now() / 1000) * 1000;
    const result = await call({});
    const after = Date.now();
    expect(result.output).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d$/);
    expect(Date.parse(result.output)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(result.output)).toBeLessThanOrEqual(after);
    expect(now.description).toContain(`server's time zone (${localTimeZone()})`);
    expect(now.options.readOnly).toBe(true);
  });

  it("takes an IANA zone", async () => {
    expect((await call({ tz: "Asia/Tokyo" })).output).toMatch(/\+09:00$/);
    expect((await call({ tz: "UTC" })).output).toMatch(/\+00:00$/);
  });

  it("refuses an unknown zone as an argument error that shows what a valid name looks like", async () => {
    const result = await call({ tz: "Mars/Olympus" });
    expect(result.error?.kind).toBe("invalid_arguments");
    expect(result.output).toBe(
      "Tool error: Invalid arguments for now:\n- tz: must be an IANA time zone name such as Europe/Paris, America/New_York, Asia/Shanghai or UTC",
    );
  });
});

describe("currentDate()", () => {
  const at = new Date("2025-03-09T20:00:00Z");

  it("is an instruction fragment with the date only, in the zone asked for", () => {
    expect(currentDate("Asia/Shanghai", at)).toBe("Today's date is 2025-03-10 (Monday, Asia/Shanghai).");
    expect(currentDate("America/Los_Angeles", at)).toBe(
      "Today's date is 2025-03-09 (Sunday, America/Los_Angeles).",
    );
    expect(currentDate()).not.toMatch(/\d\d:\d\d/);
    expect(currentDate()).toContain(localTimeZone());
  });

  it("stays the same all day, so a prompt cache stays warm", () => {
    const morning = currentDate("UTC", new Date("2025-03-09T00:00:01Z"));
    const night = currentDate("UTC", new Date("2025-03-09T23:59:59Z"));
    expect(morning).toBe(night);
  });

  it("throws UserError for an unknown zone", () => {
    expect(() => currentDate("Not/AZone")).toThrow(UserError);
    expect(() => currentDate("Not/AZone")).toThrow(
      /unknown time zone "Not\/AZone"; use an IANA name such as Europe\/Paris/,
    );
  });
});
