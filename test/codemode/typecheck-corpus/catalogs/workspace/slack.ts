/** The workspace's Slack tools (zod schemas), over the given fixtures. */

import { z } from "zod";
import { type AnyTool, ToolError, tool } from "../../../../../src/index.js";
import type { Channel, WorkspaceFixtures } from "./fixtures.js";

function findChannel(data: WorkspaceFixtures, channel: string): Channel {
  const name = channel.replace(/^#/, "");
  const found = data.channels.find((c) => c.id === channel || c.name === name);
  if (!found) {
    throw new ToolError(`There is no channel ${channel}.`, { hint: "List them with slack__list_channels." });
  }
  return found;
}

/** slack__list_channels, slack__get_user, slack__search_messages, slack__add_reaction, slack__post_message. */
export function slackTools(data: WorkspaceFixtures): AnyTool[] {
  return [
    tool({
      name: "slack__list_channels",
      description: "List the workspace's channels.",
      input: z.object({ include_archived: z.boolean().optional().describe("Default false") }),
      output: z.array(
        z.object({
          id: z.string(),
          name: z.string(),
          members: z.number().int(),
          archived: z.boolean(),
          topic: z.string().optional(),
        }),
      ),
      readOnly: true,
      run: ({ include_archived }) =>
        data.channels.filter((c) => include_archived === true || !c.archived).map((c) => ({ ...c })),
    }),
    tool({
      name: "slack__get_user",
      description: "Get a user's profile by id (e.g. U2).",
      input: z.object({ user_id: z.string().describe("User id, e.g. U2") }),
      output: z.object({
        id: z.string(),
        name: z.string(),
        real_name: z.string(),
        email: z.string().optional(),
        tz: z.string().describe("IANA time zone"),
        is_bot: z.boolean(),
      }),
      readOnly: true,
      run: ({ user_id }) => {
        const user = data.users.find((u) => u.id === user_id);
        if (!user) throw new ToolError(`There is no user ${user_id}.`);
        return { ...user };
      },
    }),
    tool({
      name: "slack__search_messages",
      description:
        "Search messages (case-insensitive). Returns { total, matches: { channel, user, text, ts }[] }, newest first; user is a user id.",
      input: z.object({
        query: z.string().min(1),
        channel: z.string().optional().describe("Channel id or #name"),
        limit: z.number().int().min(1).max(100).optional(),
      }),
      readOnly: true,
      run: ({ query, channel, limit }) => {
        const inChannel = channel === undefined ? undefined : findChannel(data, channel).id;
        const matches = data.messages
          .filter((m) => inChannel === undefined || m.channel === inChannel)
          .filter((m) => m.text.toLowerCase().includes(query.toLowerCase()))
          .sort((a, b) => b.ts.localeCompare(a.ts));
        return { total: matches.length, matches: matches.slice(0, limit ?? 20).map((m) => ({ ...m })) };
      },
    }),
    tool({
      name: "slack__add_reaction",
      description:
        "React to a message with an emoji. Returns { ok, reactions } (the message's reactions afterwards).",
      input: z.object({
        channel: z.string().describe("Channel id, e.g. C02"),
        ts: z.string().describe("The message's ts"),
        name: z.string().describe("Emoji name without colons, e.g. tada"),
      }),
      run: ({ channel, ts, name }) => {
        const target = findChannel(data, channel);
        const message = data.messages.find((m) => m.channel === target.id && m.ts === ts);
        if (!message) throw new ToolError(`There is no message ${ts} in #${target.name}.`);
        message.reactions = [...new Set([...(message.reactions ?? []), name])];
        return { ok: true, reactions: message.reactions };
      },
    }),
    tool({
      name: "slack__post_message",
      description: "Post a message to a channel (id or #name), or reply in a thread with thread_ts.",
      input: z.object({
        channel: z.string().describe("Channel id (C02) or name (#eng)"),
        text: z.string().min(1).max(4000),
        thread_ts: z.string().optional().describe("Reply in this message's thread"),
        unfurl_links: z.boolean().optional(),
      }),
      output: z.object({ ts: z.string(), channel: z.string(), permalink: z.string() }),
      run: ({ channel, text }) => {
        const target = findChannel(data, channel);
        if (target.archived) throw new ToolError(`#${target.name} is archived: nobody reads it.`);
        const ts = `${1749300000 + data.messages.length}.000100`;
        data.messages.push({ channel: target.id, user: "U0", text, ts });
        return {
          ts,
          channel: target.id,
          permalink: `https://acme.slack.com/archives/${target.id}/p${ts.replace(".", "")}`,
        };
      },
    }),
  ];
}
