/** Zoom: video meetings, recordings, webinars. */

import type { ToolRow } from "./define.js";

export const ZOOM: readonly ToolRow[] = [
  [
    "list_meetings",
    "List your scheduled, live or upcoming Zoom meetings.",
    { "type?": "scheduled|live|upcoming: Which meetings" },
  ],
  [
    "create_meeting",
    "Create a Zoom meeting and get its join link and passcode.",
    { topic: "Topic", start_time: "Start (ISO 8601)", duration_minutes: "int: Length" },
  ],
  [
    "get_meeting",
    "Get a Zoom meeting's join URL, passcode, settings and host.",
    { meeting_id: "Meeting id" },
  ],
  ["delete_meeting", "Delete a scheduled Zoom meeting.", { meeting_id: "Meeting id" }],
  [
    "list_recordings",
    "List cloud recordings of past Zoom meetings in a date range.",
    { from: "Start date", to: "End date" },
  ],
  ["get_meeting_transcript", "Get the transcript of a recorded Zoom meeting.", { meeting_id: "Meeting id" }],
  [
    "list_meeting_participants",
    "List who joined a past Zoom meeting and for how long.",
    { meeting_id: "Meeting id" },
  ],
  [
    "create_webinar",
    "Schedule a Zoom webinar with registration.",
    { topic: "Topic", start_time: "Start", duration_minutes: "int: Length" },
  ],
];
