/** Calendar: calendars, events, availability, rooms. */

import type { ToolRow } from "./define.js";

const calendarId = "Calendar id; 'primary' for your own calendar";

export const CALENDAR: readonly ToolRow[] = [
  ["list_calendars", "List the calendars you own or subscribe to, with their ids, names and time zones.", {}],
  [
    "list_events",
    "List events on a calendar between two times, expanded so recurring events appear once per occurrence.",
    {
      "calendar_id?": calendarId,
      time_min: "Start of the window (ISO 8601)",
      time_max: "End of the window (ISO 8601)",
      "query?": "Free-text filter on title, description and attendees",
    },
  ],
  [
    "get_event",
    "Get one calendar event with its attendees, their responses, location, conferencing link and recurrence.",
    { "calendar_id?": calendarId, event_id: "Event id" },
  ],
  [
    "create_event",
    "Create a calendar event and send invitations to its attendees.",
    {
      "calendar_id?": calendarId,
      title: "Event title",
      start: "Start (ISO 8601)",
      end: "End (ISO 8601)",
      "attendees?": "string[]: Attendee emails",
      "location?": "Place or room",
      "add_video_call?": "bool: Attach a video conference link",
    },
  ],
  [
    "update_event",
    "Change an event's time, title, attendees, location or description; attendees are notified.",
    {
      "calendar_id?": calendarId,
      event_id: "Event id",
      "start?": "New start",
      "end?": "New end",
      "title?": "New title",
    },
  ],
  [
    "delete_event",
    "Cancel and delete a calendar event, notifying its attendees.",
    {
      "calendar_id?": calendarId,
      event_id: "Event id",
      "notify?": "bool: Email the attendees about the cancellation",
    },
  ],
  [
    "respond_to_event",
    "Accept, decline or tentatively accept an event invitation.",
    {
      event_id: "Event id",
      response: "accepted|declined|tentative: Your answer",
      "comment?": "Note to the organizer",
    },
  ],
  [
    "quick_add_event",
    "Create an event from a short sentence such as 'Lunch with Sam Friday 12:30'.",
    { text: "What, when and where in plain words" },
  ],
  [
    "find_free_slots",
    "Find times when all the given people are free within a window, for scheduling.",
    {
      attendees: "string[]: Emails of the people",
      time_min: "Window start",
      time_max: "Window end",
      duration_minutes: "int: Length of the slot",
    },
  ],
  [
    "get_free_busy",
    "Get the busy intervals of one or more calendars in a time window.",
    { calendars: "string[]: Calendar ids or emails", time_min: "Window start", time_max: "Window end" },
  ],
  [
    "list_rooms",
    "List bookable meeting rooms with their capacity, floor and equipment.",
    { "building?": "Only rooms in this building" },
  ],
  [
    "book_room",
    "Reserve a meeting room for an existing event by adding it as a resource.",
    { event_id: "Event id", room_id: "Room resource id" },
  ],
  [
    "list_recurring_event_instances",
    "List the occurrences of one recurring event series in a window.",
    { event_id: "Id of the recurring event", "time_min?": "Window start", "time_max?": "Window end" },
  ],
  [
    "move_event",
    "Move an event from one calendar to another.",
    { event_id: "Event id", from_calendar: "Source calendar id", to_calendar: "Destination calendar id" },
  ],
  [
    "share_calendar",
    "Share a calendar with someone at a given access level.",
    {
      calendar_id: calendarId,
      email: "Person to share with",
      role: "freeBusyReader|reader|writer|owner: Access level",
    },
  ],
  [
    "set_out_of_office",
    "Block time as out of office and auto-decline new invitations during it.",
    { start: "Start (ISO 8601)", end: "End (ISO 8601)", "message?": "Decline message" },
  ],
  [
    "get_working_hours",
    "Get a person's working hours and time zone from their calendar settings.",
    { email: "The person's email" },
  ],
  [
    "create_calendar",
    "Create a new secondary calendar.",
    { name: "Calendar name", "time_zone?": "IANA time zone, e.g. Europe/Berlin" },
  ],
];
