/** The workspace's file and mail tools (plain JSON Schemas), over the given fixtures. */

import { type AnyTool, ToolError, tool } from "../../../../../src/index.js";
import type { WorkspaceFixtures } from "./fixtures.js";

interface ReadArgs {
  path: string;
  encoding?: "utf8" | "base64";
}

interface WriteArgs {
  path: string;
  content: string;
  mode?: "overwrite" | "append" | "create";
}

interface MailArgs {
  to: string[];
  subject: string;
  body: string;
  cc?: string[];
  priority?: "low" | "normal" | "high";
}

const FILE_TIME = "2025-06-09T12:00:00Z";

function read(data: WorkspaceFixtures, path: string) {
  const file = data.files.get(path);
  if (!file) {
    throw new ToolError(`${path} does not exist.`, { hint: "List a directory with files__list_directory." });
  }
  return file;
}

/** files__read_file, files__list_directory, files__search, files__write_file, mail__send_email. */
export function fileAndMailTools(data: WorkspaceFixtures): AnyTool[] {
  return [
    tool({
      name: "files__read_file",
      description: "Read a file of the shared drive.",
      input: {
        type: "object",
        properties: {
          path: { type: "string", description: "Absolute path, e.g. /notes/todo.md" },
          encoding: { type: "string", enum: ["utf8", "base64"], default: "utf8" },
        },
        required: ["path"],
        additionalProperties: false,
      },
      output: {
        type: "object",
        properties: {
          path: { type: "string" },
          content: { type: "string" },
          size: { type: "integer", description: "Bytes" },
          modified_at: { type: "string" },
        },
        required: ["path", "content", "size", "modified_at"],
      },
      readOnly: true,
      run: (args) => {
        const { path, encoding } = args as unknown as ReadArgs;
        const file = read(data, path);
        const bytes = Buffer.from(file.content, "utf8");
        const content = encoding === "base64" ? bytes.toString("base64") : file.content;
        return { path, content, size: bytes.length, modified_at: file.modified_at };
      },
    }),
    tool({
      name: "files__list_directory",
      description:
        'List a directory of the shared drive. Returns { path, entries: { name, type: "file" | "dir", size? }[] }.',
      input: {
        type: "object",
        properties: { path: { type: "string" }, recursive: { type: "boolean" } },
        required: ["path"],
        additionalProperties: false,
      },
      readOnly: true,
      run: (args) => {
        const { path, recursive } = args as unknown as { path: string; recursive?: boolean };
        const prefix = path.endsWith("/") ? path : `${path}/`;
        const entries = new Map<string, { name: string; type: "file" | "dir"; size?: number }>();
        for (const [name, file] of data.files) {
          if (!name.startsWith(prefix)) continue;
          const rest = name.slice(prefix.length);
          const slash = rest.indexOf("/");
          if (slash === -1 || recursive === true) {
            entries.set(rest, { name: rest, type: "file", size: Buffer.byteLength(file.content) });
          } else entries.set(rest.slice(0, slash), { name: rest.slice(0, slash), type: "dir" });
        }
        if (entries.size === 0 && path !== "/") throw new ToolError(`${path} is not a directory.`);
        return { path, entries: [...entries.values()].sort((a, b) => a.name.localeCompare(b.name)) };
      },
    }),
    tool({
      name: "files__search",
      description: "Search the text of every file. Returns the matching lines.",
      input: {
        type: "object",
        properties: {
          query: { type: "string", minLength: 1 },
          path: { type: "string", description: "Only under this directory" },
          max_results: { type: "integer", minimum: 1, maximum: 100 },
        },
        required: ["query"],
        additionalProperties: false,
      },
      output: {
        type: "object",
        properties: {
          matches: {
            type: "array",
            items: {
              type: "object",
              properties: { path: { type: "string" }, line: { type: "integer" }, text: { type: "string" } },
              required: ["path", "line", "text"],
            },
          },
        },
        required: ["matches"],
      },
      readOnly: true,
      run: (args) => {
        const {
          query,
          path = "/",
          max_results = 20,
        } = args as { query: string; path?: string; max_results?: number };
        const matches: { path: string; line: number; text: string }[] = [];
        for (const [name, file] of data.files) {
          if (!name.startsWith(path)) continue;
          file.content.split("\n").forEach((text, i) => {
            if (text.toLowerCase().includes(query.toLowerCase()))
              matches.push({ path: name, line: i + 1, text });
          });
        }
        return { matches: matches.slice(0, max_results) };
      },
    }),
    tool({
      name: "files__write_file",
      description:
        "Write a file of the shared drive. mode: overwrite (default), append, or create (fails if it exists).",
      input: {
        type: "object",
        properties: {
          path: { type: "string" },
          content: { type: "string" },
          mode: { type: "string", enum: ["overwrite", "append", "create"] },
        },
        required: ["path", "content"],
        additionalProperties: false,
      },
      output: {
        type: "object",
        properties: {
          path: { type: "string" },
          bytes_written: { type: "integer" },
          created: { type: "boolean" },
        },
        required: ["path", "bytes_written", "created"],
      },
      run: (args) => {
        const { path, content, mode = "overwrite" } = args as unknown as WriteArgs;
        const existing = data.files.get(path);
        if (existing && mode === "create") throw new ToolError(`${path} exists already.`);
        const text = mode === "append" && existing ? existing.content + content : content;
        data.files.set(path, { content: text, modified_at: FILE_TIME });
        return { path, bytes_written: Buffer.byteLength(content), created: existing === undefined };
      },
    }),
    tool({
      name: "mail__send_email",
      description: "Send an email from the team's address. Returns { id, status }.",
      input: {
        type: "object",
        properties: {
          to: { type: "array", items: { type: "string", format: "email" }, minItems: 1 },
          subject: { type: "string", minLength: 1 },
          body: { type: "string", description: "Plain text" },
          cc: { type: "array", items: { type: "string", format: "email" } },
          priority: { type: "string", enum: ["low", "normal", "high"] },
        },
        required: ["to", "subject", "body"],
        additionalProperties: false,
      },
      run: (args) => {
        const { to, subject, body } = args as unknown as MailArgs;
        const id = `msg-${data.sentMail.length + 1}`;
        data.sentMail.push({ id, to: [...to], subject, body });
        return { id, status: "sent" };
      },
    }),
  ];
}
