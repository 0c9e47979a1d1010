/** Gmail: messages, threads, drafts, labels, filters. */

import type { ToolRow } from "./define.js";

export const GMAIL: readonly ToolRow[] = [
  [
    "search_emails",
    "Search your mailbox with Gmail query syntax (from:, to:, subject:, has:attachment, newer_than:).",
    { query: "Gmail search query, e.g. 'from:anna newer_than:7d'", "max_results?": "int: How many messages" },
  ],
  [
    "get_email",
    "Read one email: headers, plain-text body, HTML body and attachment list.",
    { message_id: "Message id" },
  ],
  [
    "send_email",
    "Send an email to one or more recipients, with cc, bcc and attachments.",
    {
      to: "string[]: Recipient addresses",
      subject: "Subject line",
      body: "Plain-text body",
      "cc?": "string[]: Cc addresses",
      "bcc?": "string[]: Bcc addresses",
    },
  ],
  [
    "reply_to_email",
    "Reply to an email in its thread, to the sender or to all recipients.",
    {
      message_id: "Message being answered",
      body: "Reply text",
      "reply_all?": "bool: Reply to everyone on the thread",
    },
  ],
  [
    "forward_email",
    "Forward an email with its attachments to other recipients.",
    {
      message_id: "Message id",
      to: "string[]: Recipients",
      "note?": "Text added above the forwarded message",
    },
  ],
  [
    "create_draft",
    "Save an email as a draft without sending it.",
    { to: "string[]: Recipients", subject: "Subject", body: "Body" },
  ],
  ["list_drafts", "List your saved email drafts.", {}],
  ["send_draft", "Send a previously saved draft.", { draft_id: "Draft id" }],
  [
    "get_thread",
    "Get a whole email conversation (thread) with every message in order.",
    { thread_id: "Thread id" },
  ],
  ["list_labels", "List your Gmail labels, system and user-created, with unread counts.", {}],
  [
    "create_label",
    "Create a new Gmail label, optionally nested under another.",
    { name: "Label name, use / for nesting" },
  ],
  [
    "modify_labels",
    "Add or remove labels on emails, e.g. to archive, star or mark as read.",
    {
      message_ids: "string[]: Message ids",
      "add?": "string[]: Label ids to add",
      "remove?": "string[]: Label ids to remove, e.g. INBOX to archive or UNREAD to mark read",
    },
  ],
  ["trash_email", "Move an email to the trash (recoverable for 30 days).", { message_id: "Message id" }],
  ["mark_as_read", "Mark emails as read.", { message_ids: "string[]: Message ids" }],
  [
    "get_attachment",
    "Download an email attachment's content as base64.",
    { message_id: "Message id", attachment_id: "Attachment id" },
  ],
  ["list_unread", "List the unread emails in your inbox, newest first.", { "max_results?": "int: How many" }],
  [
    "create_filter",
    "Create a Gmail filter that labels, archives or forwards incoming mail matching criteria.",
    { from: "Sender to match", "label?": "Label to apply", "archive?": "bool: Skip the inbox" },
  ],
  [
    "set_vacation_responder",
    "Turn the out-of-office auto-reply on or off, with its message and dates.",
    {
      enabled: "bool: On or off",
      "subject?": "Auto-reply subject",
      "message?": "Auto-reply text",
      "end?": "Last day (YYYY-MM-DD)",
    },
  ],
  [
    "list_contacts",
    "List your email contacts with names, addresses and phone numbers.",
    { "query?": "Filter by name or address" },
  ],
  [
    "unsubscribe",
    "Unsubscribe from a mailing list using the List-Unsubscribe header of one of its emails.",
    { message_id: "An email from the list" },
  ],
];
