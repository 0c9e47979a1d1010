/** The workspace's GitHub tools (zod schemas), over the given fixtures. */

import { z } from "zod";
import { type AnyTool, ToolError, tool } from "../../../../../src/index.js";
import type { Issue, WorkspaceFixtures } from "./fixtures.js";

const REPOS = ["acme/web", "acme/api"];

const repo = z.string().describe('Repository as owner/name, e.g. "acme/web"');
const issueNumber = z.number().int().positive().describe("Issue number, e.g. 103");

const issueSummary = z.object({
  number: z.number().int(),
  title: z.string(),
  state: z.enum(["open", "closed"]),
  labels: z.array(z.string()),
  author: z.string(),
  assignee: z.string().optional(),
  created_at: z.string().describe("ISO 8601 date-time"),
  comments: z.number().int(),
});

const issueDetail = issueSummary.extend({
  body: z.string(),
  updated_at: z.string(),
  milestone: z.object({ title: z.string(), due_on: z.string().optional() }).optional(),
});

function checkRepo(name: string): void {
  if (!REPOS.includes(name)) {
    throw new ToolError(`Repository ${name} was not found.`, {
      hint: `Known repositories: ${REPOS.join(", ")}.`,
    });
  }
}

function findIssue(data: WorkspaceFixtures, name: string, number: number): Issue {
  checkRepo(name);
  const found = data.issues.find((i) => i.repo === name && i.number === number);
  if (!found) throw new ToolError(`Issue ${name}#${number} does not exist.`);
  return found;
}

function summary(i: Issue): z.infer<typeof issueSummary> {
  const { number, title, state, labels, author, assignee, created_at, comments } = i;
  return {
    number,
    title,
    state,
    labels: [...labels],
    author,
    ...(assignee ? { assignee } : {}),
    created_at,
    comments,
  };
}

/** github__search_issues, get_issue, list_pull_requests, add_comment, add_labels, close_issue, create_issue. */
export function githubTools(data: WorkspaceFixtures): AnyTool[] {
  return [
    tool({
      name: "github__search_issues",
      description:
        "Search the issues of a repository. Returns the matches, newest first, and how many there are.",
      input: z.object({
        repo,
        query: z.string().optional().describe("Words the title must contain (case-insensitive)"),
        state: z.enum(["open", "closed", "all"]).default("open").describe("Which issues"),
        labels: z.array(z.string()).optional().describe("Only issues with all of these labels"),
        limit: z.number().int().min(1).max(50).default(20).describe("At most this many"),
      }),
      output: z.object({ total: z.number().int(), items: z.array(issueSummary) }),
      readOnly: true,
      run: ({ repo: name, query, state, labels, limit }) => {
        checkRepo(name);
        const matches = data.issues
          .filter((i) => i.repo === name && (state === "all" || i.state === state))
          .filter((i) => query === undefined || i.title.toLowerCase().includes(query.toLowerCase()))
          .filter((i) => (labels ?? []).every((label) => i.labels.includes(label)))
          .sort((a, b) => b.created_at.localeCompare(a.created_at));
        return { total: matches.length, items: matches.slice(0, limit).map(summary) };
      },
    }),
    tool({
      name: "github__get_issue",
      description: "Get one issue with its body and milestone.",
      input: z.object({ repo, number: issueNumber }),
      output: issueDetail,
      readOnly: true,
      run: ({ repo: name, number }) => {
        const i = findIssue(data, name, number);
        return {
          ...summary(i),
          body: i.body,
          updated_at: i.updated_at,
          ...(i.milestone ? { milestone: { ...i.milestone } } : {}),
        };
      },
    }),
    tool({
      name: "github__list_pull_requests",
      description:
        "List a repository's pull requests (number, title, state, author, draft, reviewers, additions, deletions, linked_issue).",
      input: z.object({
        repo,
        state: z.enum(["open", "closed", "merged", "all"]).optional().describe("Default: all"),
        author: z.string().optional().describe("Only pull requests by this login"),
      }),
      readOnly: true,
      run: ({ repo: name, state, author }) => {
        checkRepo(name);
        return data.pulls
          .filter((p) => p.repo === name && (state === undefined || state === "all" || p.state === state))
          .filter((p) => author === undefined || p.author === author)
          .map(({ repo: _repo, ...pull }) => ({ ...pull, reviewers: [...pull.reviewers] }));
      },
    }),
    tool({
      name: "github__add_comment",
      description: "Comment on an issue or pull request. Markdown is allowed.",
      input: z.object({
        repo,
        number: issueNumber,
        body: z.string().min(1).describe("The comment, in Markdown"),
      }),
      output: z.object({ id: z.number().int(), url: z.string() }),
      run: ({ repo: name, number, body }) => {
        const target = findIssue(data, name, number);
        target.comments++;
        const id = 9000 + data.comments.length + 1;
        data.comments.push({ repo: name, number, body, id });
        return { id, url: `https://github.com/${name}/issues/${number}#issuecomment-${id}` };
      },
    }),
    tool({
      name: "github__add_labels",
      description: "Add labels to an issue. Returns the issue's labels afterwards.",
      input: z.object({ repo, number: issueNumber, labels: z.array(z.string().min(1)).min(1) }),
      run: ({ repo: name, number, labels }) => {
        const target = findIssue(data, name, number);
        for (const label of labels) if (!target.labels.includes(label)) target.labels.push(label);
        return { number, labels: [...target.labels] };
      },
    }),
    tool({
      name: "github__close_issue",
      description: "Close an issue, as completed (the default) or as not planned.",
      input: z.object({
        repo,
        number: issueNumber,
        reason: z.enum(["completed", "not_planned"]).optional(),
      }),
      output: z.object({ number: z.number().int(), state: z.literal("closed"), reason: z.string() }),
      run: ({ repo: name, number, reason = "completed" }) => {
        const target = findIssue(data, name, number);
        if (target.state === "closed") throw new ToolError(`Issue ${name}#${number} is closed already.`);
        target.state = "closed";
        return { number, state: "closed" as const, reason };
      },
    }),
    tool({
      name: "github__create_issue",
      description: "Open a new issue.",
      input: z.object({
        repo,
        title: z.string().min(3),
        body: z.string().optional(),
        labels: z.array(z.string()).optional(),
        assignee: z.string().optional().describe("Login to assign, e.g. maria"),
      }),
      output: z.object({ number: z.number().int(), url: z.string() }),
      run: ({ repo: name, title, body, labels, assignee }) => {
        checkRepo(name);
        const number = Math.max(...data.issues.filter((i) => i.repo === name).map((i) => i.number)) + 1;
        const now = "2025-06-09T12:00:00Z";
        data.issues.push({
          repo: name,
          number,
          title,
          state: "open",
          labels: labels ?? [],
          author: "agent",
          ...(assignee ? { assignee } : {}),
          body: body ?? "",
          created_at: now,
          updated_at: now,
          comments: 0,
        });
        return { number, url: `https://github.com/${name}/issues/${number}` };
      },
    }),
  ];
}
