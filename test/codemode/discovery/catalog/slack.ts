/** Slack: channels, messages, threads, users, reminders. */

import type { ToolRow } from "./define.js";

const channel = "Channel id or name, e.g. #payments";

export const SLACK: readonly ToolRow[] = [
  [
    "list_channels",
    "List public and private Slack channels you can see, with topic and member count.",
    {
      "types?": "public_channel|private_channel|all: Which channels",
      "exclude_archived?": "bool: Leave archived channels out",
    },
  ],
  ["get_channel_info", "Get a Slack channel's topic, purpose, creator and creation date.", { channel }],
  [
    "create_channel",
    "Create a new public or private Slack channel.",
    { name: "Channel name, lowercase without spaces", "private?": "bool: Make it private" },
  ],
  ["archive_channel", "Archive a Slack channel so nobody can post in it.", { channel }],
  [
    "invite_to_channel",
    "Invite one or more people to a Slack channel.",
    { channel, users: "string[]: User ids" },
  ],
  ["remove_from_channel", "Remove a member from a Slack channel.", { channel, user: "User id" }],
  [
    "set_channel_topic",
    "Set the topic line shown at the top of a Slack channel.",
    { channel, topic: "New topic" },
  ],
  [
    "post_message",
    "Post a message to a Slack channel, optionally as a reply in a thread.",
    {
      channel,
      text: "Message text (Slack mrkdwn)",
      "thread_ts?": "Timestamp of the parent message to reply in its thread",
    },
  ],
  [
    "update_message",
    "Edit the text of a message you posted.",
    { channel, ts: "Timestamp of the message", text: "New text" },
  ],
  [
    "delete_message",
    "Delete a message you posted in a channel.",
    { channel, ts: "Timestamp of the message" },
  ],
  [
    "get_channel_history",
    "Read the recent messages of a Slack channel, newest first.",
    { channel, "oldest?": "Only messages after this timestamp", "limit?": "int: How many messages" },
  ],
  [
    "get_thread_replies",
    "Read all the replies in a message thread.",
    { channel, thread_ts: "Timestamp of the parent message" },
  ],
  [
    "search_messages",
    "Search Slack messages across channels with modifiers like from:, in: and during:.",
    { query: "Search text, e.g. 'deploy failed in:#ops'" },
  ],
  [
    "send_direct_message",
    "Send a direct message to one person in Slack.",
    { user: "User id or email", text: "Message text" },
  ],
  [
    "add_reaction",
    "Add an emoji reaction to a Slack message.",
    { channel, ts: "Message timestamp", emoji: "Emoji name without colons, e.g. eyes" },
  ],
  ["pin_message", "Pin a message to a Slack channel.", { channel, ts: "Message timestamp" }],
  [
    "list_users",
    "List the people in the Slack workspace with their display names and status.",
    { "include_bots?": "bool: Include bot users" },
  ],
  [
    "get_user_info",
    "Get a Slack user's profile: real name, title, time zone, email and status.",
    { user: "User id" },
  ],
  ["lookup_user_by_email", "Find a Slack user by their email address.", { email: "Email address" }],
  [
    "set_status",
    "Set your Slack status text and emoji, with an optional expiry.",
    { text: "Status text", "emoji?": "Status emoji", "expires_at?": "When it clears (ISO 8601)" },
  ],
  [
    "create_reminder",
    "Create a Slack reminder for yourself or someone else at a time.",
    {
      text: "What to remind about",
      time: "When, e.g. 'tomorrow at 9am' or ISO 8601",
      "user?": "User to remind (default you)",
    },
  ],
  ["list_reminders", "List your pending Slack reminders.", {}],
  [
    "upload_file",
    "Upload a file to Slack and share it in channels.",
    { channels: "string[]: Channels to share it in", file_name: "File name", content: "File content (text)" },
  ],
  [
    "schedule_message",
    "Schedule a Slack message to be posted in a channel at a later time.",
    { channel, text: "Message text", post_at: "When to post (ISO 8601)" },
  ],
  ["list_user_groups", "List Slack user groups (handles like @oncall-payments) and their members.", {}],
];
