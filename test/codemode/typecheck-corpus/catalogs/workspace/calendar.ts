/** The workspace's calendar tools (plain JSON Schemas), over the given fixtures. */

import { type AnyTool, ToolError, tool } from "../../../../../src/index.js";
import type { CalendarEvent, WorkspaceFixtures } from "./fixtures.js";

const dateTime = { type: "string", format: "date-time", description: "ISO 8601, e.g. 2025-06-09T09:00:00Z" };

const eventSchema = {
  type: "object",
  properties: {
    id: { type: "string" },
    title: { type: "string" },
    start: { type: "string" },
    end: { type: "string" },
    location: { type: "string" },
    attendees: {
      type: "array",
      items: {
        type: "object",
        properties: {
          email: { type: "string" },
          response: { type: "string", enum: ["accepted", "declined", "tentative", "needs_action"] },
        },
        required: ["email", "response"],
      },
    },
  },
  required: ["id", "title", "start", "end", "attendees"],
};

interface ListArgs {
  from: string;
  to: string;
  calendar_id?: "primary" | "team";
  query?: string;
}

interface CreateArgs {
  title: string;
  start: string;
  end: string;
  attendees?: string[];
  location?: string;
  reminder?: { minutes_before: number; method: "email" | "popup" };
}

interface FreeSlotArgs {
  attendees: string[];
  duration_minutes: number;
  from: string;
  to: string;
}

function time(value: string, field: string): number {
  const ms = Date.parse(value);
  if (Number.isNaN(ms))
    throw new ToolError(`${field} is not a date-time: ${value}.`, {
      hint: "Use ISO 8601, e.g. 2025-06-09T09:00:00Z.",
    });
  return ms;
}

function copy(event: CalendarEvent): Omit<CalendarEvent, "calendar_id"> {
  const { calendar_id: _calendar, attendees, ...rest } = event;
  return { ...rest, attendees: attendees.map((a) => ({ ...a })) };
}

/** calendar__list_events, calendar__create_event, calendar__find_free_slots. */
export function calendarTools(data: WorkspaceFixtures): AnyTool[] {
  return [
    tool({
      name: "calendar__list_events",
      description: "List the events that start between from and to, earliest first.",
      input: {
        type: "object",
        properties: {
          from: dateTime,
          to: dateTime,
          calendar_id: { type: "string", enum: ["primary", "team"], description: "Default: primary" },
          query: { type: "string", description: "Words the title must contain" },
        },
        required: ["from", "to"],
        additionalProperties: false,
      },
      output: {
        type: "object",
        properties: { events: { type: "array", items: eventSchema } },
        required: ["events"],
      },
      readOnly: true,
      run: (args) => {
        const { from, to, calendar_id = "primary", query } = args as unknown as ListArgs;
        const start = time(from, "from");
        const end = time(to, "to");
        const events = data.events
          .filter((e) => e.calendar_id === calendar_id)
          .filter((e) => Date.parse(e.start) >= start && Date.parse(e.start) < end)
          .filter((e) => query === undefined || e.title.toLowerCase().includes(query.toLowerCase()))
          .sort((a, b) => a.start.localeCompare(b.start));
        return { events: events.map(copy) };
      },
    }),
    tool({
      name: "calendar__create_event",
      description: "Create an event in the primary calendar and invite the attendees by email.",
      input: {
        type: "object",
        properties: {
          title: { type: "string", minLength: 1 },
          start: dateTime,
          end: dateTime,
          attendees: {
            type: "array",
            items: { type: "string", format: "email" },
            description: "Emails to invite",
          },
          location: { type: "string" },
          reminder: {
            type: "object",
            properties: {
              minutes_before: { type: "integer", minimum: 0 },
              method: { type: "string", enum: ["email", "popup"] },
            },
            required: ["minutes_before", "method"],
            additionalProperties: false,
          },
        },
        required: ["title", "start", "end"],
        additionalProperties: false,
      },
      output: {
        type: "object",
        properties: {
          id: { type: "string" },
          title: { type: "string" },
          start: { type: "string" },
          end: { type: "string" },
        },
        required: ["id", "title", "start", "end"],
      },
      run: (args) => {
        const { title, start, end, attendees = [], location } = args as unknown as CreateArgs;
        if (time(end, "end") <= time(start, "start"))
          throw new ToolError("The event must end after it starts.");
        const id = `ev-${data.events.length + 1}`;
        data.events.push({
          id,
          calendar_id: "primary",
          title,
          start,
          end,
          ...(location ? { location } : {}),
          attendees: attendees.map((email) => ({ email, response: "needs_action" as const })),
        });
        return { id, title, start, end };
      },
    }),
    tool({
      name: "calendar__find_free_slots",
      description:
        "Find times between from and to when all the attendees are free, in whole hours of the working day (09:00-17:00 UTC). Returns { slots: { start, end }[] }.",
      input: {
        type: "object",
        properties: {
          attendees: { type: "array", items: { type: "string" }, minItems: 1, description: "Emails" },
          duration_minutes: { type: "integer", minimum: 15, maximum: 480 },
          from: dateTime,
          to: dateTime,
        },
        required: ["attendees", "duration_minutes", "from", "to"],
        additionalProperties: false,
      },
      readOnly: true,
      run: (args) => {
        const { attendees, duration_minutes, from, to } = args as unknown as FreeSlotArgs;
        const busy = data.events.filter((e) =>
          e.attendees.some((a) => attendees.includes(a.email) && a.response !== "declined"),
        );
        const slots: { start: string; end: string }[] = [];
        const hour = 3_600_000;
        for (
          let t = Math.ceil(time(from, "from") / hour) * hour;
          t + duration_minutes * 60_000 <= time(to, "to");
          t += hour
        ) {
          const h = new Date(t).getUTCHours();
          if (h < 9 || h + duration_minutes / 60 > 17) continue;
          const end = t + duration_minutes * 60_000;
          if (busy.some((e) => Date.parse(e.start) < end && Date.parse(e.end) > t)) continue;
          slots.push({ start: new Date(t).toISOString(), end: new Date(end).toISOString() });
          if (slots.length === 10) break;
        }
        return { slots };
      },
    }),
  ];
}
