/**
 * The data behind the workspace catalog: a small company's GitHub repositories, calendar, Slack, files and
 * mail, fixed in time (the week of 2025-06-09), so that every program's result is the same on every run.
 * `workspaceFixtures()` returns a new copy each time: tools that take effects change only that copy.
 */

/** A GitHub issue. */
export interface Issue {
  repo: string;
  number: number;
  title: string;
  state: "open" | "closed";
  labels: string[];
  author: string;
  assignee?: string;
  body: string;
  created_at: string;
  updated_at: string;
  comments: number;
  milestone?: { title: string; due_on?: string };
}

/** A GitHub pull request. */
interface PullRequest {
  repo: string;
  number: number;
  title: string;
  state: "open" | "closed" | "merged";
  author: string;
  draft: boolean;
  reviewers: string[];
  created_at: string;
  additions: number;
  deletions: number;
  linked_issue?: number;
}

/** How an attendee answered an invitation. */
type Response = "accepted" | "declined" | "tentative" | "needs_action";

/** A calendar event. */
export interface CalendarEvent {
  id: string;
  calendar_id: "primary" | "team";
  title: string;
  start: string;
  end: string;
  location?: string;
  attendees: { email: string; response: Response }[];
}

/** A Slack channel. */
export interface Channel {
  id: string;
  name: string;
  members: number;
  archived: boolean;
  topic?: string;
}

/** A Slack user. */
interface SlackUser {
  id: string;
  name: string;
  real_name: string;
  email?: string;
  tz: string;
  is_bot: boolean;
}

/** A Slack message. */
interface Message {
  channel: string;
  user: string;
  text: string;
  ts: string;
  reactions?: string[];
}

/** A file of the workspace's drive. */
interface StoredFile {
  content: string;
  modified_at: string;
}

/** Everything the workspace tools read and change. */
export interface WorkspaceFixtures {
  issues: Issue[];
  pulls: PullRequest[];
  comments: { repo: string; number: number; body: string; id: number }[];
  events: CalendarEvent[];
  channels: Channel[];
  users: SlackUser[];
  messages: Message[];
  files: Map<string, StoredFile>;
  sentMail: { id: string; to: string[]; subject: string; body: string }[];
}

const issue = (
  repo: string,
  number: number,
  title: string,
  state: Issue["state"],
  labels: string[],
  author: string,
  created_at: string,
  comments: number,
  extra: Partial<Issue> = {},
): Issue => ({
  repo,
  number,
  title,
  state,
  labels,
  author,
  body: `${title}.\n\nReported by @${author}.`,
  created_at,
  updated_at: created_at,
  comments,
  ...extra,
});

const REPORT_MAY = `date,region,revenue,orders
2025-05-05,emea,12400,310
2025-05-05,amer,18950,402
2025-05-12,emea,11020,287
2025-05-12,amer,20100,433
2025-05-19,emea,13980,341
2025-05-19,apac,6400,150
2025-05-26,amer,19775,415
2025-05-26,apac,7150,162
`;

const REPORT_JUNE = `date,region,revenue,orders
2025-06-02,emea,14210,350
2025-06-02,amer,21400,455
2025-06-02,apac,7020,158
`;

const APP_CONFIG = `{
  "name": "web",
  "version": "2.3.1",
  "features": { "darkMode": false, "betaUploads": true },
  "maxUploadMb": 8,
  "owners": ["maria", "tom"]
}
`;

const STANDUP = `# Standup notes 2025-06-06

- maria: avatar upload crash (#103) fixed in PR #110, waiting for review
- tom: rate limiter 429 (api#201) in progress
- sam: export timeout (api#203) needs a profile from prod
- BLOCKER: staging database is full
`;

const TODO = `# TODO
- [x] release notes for 2.3.1
- [ ] review PR #110
- [ ] plan v2.4 scope
- [ ] rotate the deploy key
`;

/** A new copy of the workspace's data. */
export function workspaceFixtures(): WorkspaceFixtures {
  return {
    issues: [
      issue(
        "acme/web",
        101,
        "Login button misaligned on mobile",
        "open",
        ["bug", "ui"],
        "maria",
        "2025-05-02T09:14:00Z",
        3,
        { assignee: "tom" },
      ),
      issue(
        "acme/web",
        102,
        "Add dark mode",
        "open",
        ["enhancement", "ui"],
        "lee",
        "2025-05-10T11:00:00Z",
        12,
      ),
      issue(
        "acme/web",
        103,
        "Crash when uploading a large avatar",
        "open",
        ["bug", "p1"],
        "sam",
        "2025-05-20T08:30:00Z",
        5,
        {
          assignee: "maria",
          milestone: { title: "v2.4", due_on: "2025-06-30" },
        },
      ),
      issue("acme/web", 104, "Typo in footer", "closed", ["docs"], "kim", "2025-04-01T15:45:00Z", 1),
      issue("acme/web", 105, "Session expires too early", "open", ["bug"], "tom", "2025-06-01T07:05:00Z", 0),
      issue("acme/web", 106, "Upgrade to React 19", "closed", ["chore"], "lee", "2025-03-15T10:20:00Z", 7, {
        assignee: "lee",
      }),
      issue(
        "acme/api",
        201,
        "Rate limiter returns 500 instead of 429",
        "open",
        ["bug", "p1"],
        "sam",
        "2025-05-28T13:00:00Z",
        4,
        {
          assignee: "tom",
          milestone: { title: "v2.4" },
        },
      ),
      issue("acme/api", 202, "Document pagination", "open", ["docs"], "kim", "2025-05-30T09:00:00Z", 0),
      issue(
        "acme/api",
        203,
        "Timeout on /export for big accounts",
        "open",
        ["bug", "performance"],
        "maria",
        "2025-06-03T16:10:00Z",
        2,
      ),
      issue(
        "acme/api",
        204,
        "Remove deprecated v1 endpoints",
        "closed",
        ["chore"],
        "tom",
        "2025-02-11T12:00:00Z",
        9,
        { assignee: "tom" },
      ),
    ],
    pulls: [
      {
        repo: "acme/web",
        number: 110,
        title: "Fix avatar upload crash",
        state: "open",
        author: "maria",
        draft: false,
        reviewers: ["tom"],
        created_at: "2025-06-05T10:00:00Z",
        additions: 120,
        deletions: 30,
        linked_issue: 103,
      },
      {
        repo: "acme/web",
        number: 111,
        title: "Dark mode tokens",
        state: "open",
        author: "lee",
        draft: true,
        reviewers: [],
        created_at: "2025-06-06T14:00:00Z",
        additions: 640,
        deletions: 12,
        linked_issue: 102,
      },
      {
        repo: "acme/web",
        number: 108,
        title: "Fix footer typo",
        state: "merged",
        author: "kim",
        draft: false,
        reviewers: ["lee"],
        created_at: "2025-04-02T09:00:00Z",
        additions: 1,
        deletions: 1,
        linked_issue: 104,
      },
      {
        repo: "acme/api",
        number: 210,
        title: "Return 429 when rate limited",
        state: "open",
        author: "tom",
        draft: false,
        reviewers: ["sam", "maria"],
        created_at: "2025-06-04T11:30:00Z",
        additions: 85,
        deletions: 40,
        linked_issue: 201,
      },
      {
        repo: "acme/api",
        number: 209,
        title: "Drop v1 endpoints",
        state: "merged",
        author: "tom",
        draft: false,
        reviewers: ["sam"],
        created_at: "2025-02-20T16:00:00Z",
        additions: 10,
        deletions: 2200,
      },
    ],
    comments: [],
    events: [
      {
        id: "ev-1",
        calendar_id: "primary",
        title: "Standup",
        start: "2025-06-09T09:00:00Z",
        end: "2025-06-09T09:15:00Z",
        location: "Zoom",
        attendees: [
          { email: "maria@acme.dev", response: "accepted" },
          { email: "tom@acme.dev", response: "accepted" },
          { email: "sam@acme.dev", response: "tentative" },
        ],
      },
      {
        id: "ev-2",
        calendar_id: "primary",
        title: "Design review",
        start: "2025-06-09T14:00:00Z",
        end: "2025-06-09T15:00:00Z",
        attendees: [
          { email: "lee@acme.dev", response: "accepted" },
          { email: "maria@acme.dev", response: "declined" },
          { email: "kim@acme.dev", response: "needs_action" },
        ],
      },
      {
        id: "ev-3",
        calendar_id: "primary",
        title: "1:1 Tom / Maria",
        start: "2025-06-10T10:00:00Z",
        end: "2025-06-10T10:30:00Z",
        attendees: [
          { email: "tom@acme.dev", response: "accepted" },
          { email: "maria@acme.dev", response: "accepted" },
        ],
      },
      {
        id: "ev-4",
        calendar_id: "primary",
        title: "Release planning v2.4",
        start: "2025-06-11T13:00:00Z",
        end: "2025-06-11T14:30:00Z",
        location: "Room 4",
        attendees: [
          { email: "maria@acme.dev", response: "accepted" },
          { email: "tom@acme.dev", response: "accepted" },
          { email: "sam@acme.dev", response: "declined" },
          { email: "lee@acme.dev", response: "tentative" },
          { email: "kim@acme.dev", response: "accepted" },
        ],
      },
      {
        id: "ev-5",
        calendar_id: "primary",
        title: "Customer call: Globex",
        start: "2025-06-12T16:00:00Z",
        end: "2025-06-12T16:45:00Z",
        location: "Meet",
        attendees: [
          { email: "sam@acme.dev", response: "accepted" },
          { email: "tom@acme.dev", response: "tentative" },
        ],
      },
      {
        id: "ev-6",
        calendar_id: "team",
        title: "Retro",
        start: "2025-06-13T15:00:00Z",
        end: "2025-06-13T16:00:00Z",
        attendees: [
          { email: "maria@acme.dev", response: "accepted" },
          { email: "tom@acme.dev", response: "needs_action" },
          { email: "sam@acme.dev", response: "accepted" },
          { email: "lee@acme.dev", response: "accepted" },
          { email: "kim@acme.dev", response: "declined" },
        ],
      },
    ],
    channels: [
      { id: "C01", name: "general", members: 120, archived: false },
      { id: "C02", name: "eng", members: 34, archived: false, topic: "Engineering" },
      { id: "C03", name: "incidents", members: 18, archived: false, topic: "Page on-call: @tom" },
      { id: "C04", name: "random", members: 110, archived: false },
      { id: "C05", name: "old-project", members: 6, archived: true },
    ],
    users: [
      {
        id: "U1",
        name: "maria",
        real_name: "Maria Lopez",
        email: "maria@acme.dev",
        tz: "Europe/Madrid",
        is_bot: false,
      },
      {
        id: "U2",
        name: "tom",
        real_name: "Tom Becker",
        email: "tom@acme.dev",
        tz: "Europe/Berlin",
        is_bot: false,
      },
      {
        id: "U3",
        name: "sam",
        real_name: "Sam Okafor",
        email: "sam@acme.dev",
        tz: "America/New_York",
        is_bot: false,
      },
      {
        id: "U4",
        name: "lee",
        real_name: "Lee Chen",
        email: "lee@acme.dev",
        tz: "Asia/Singapore",
        is_bot: false,
      },
      { id: "U5", name: "kim", real_name: "Kim Park", tz: "Asia/Seoul", is_bot: false },
      { id: "U9", name: "deploybot", real_name: "Deploy Bot", tz: "UTC", is_bot: true },
    ],
    messages: [
      {
        channel: "C02",
        user: "U1",
        text: "PR #110 fixes the avatar crash, can someone review?",
        ts: "1749200000.000100",
      },
      { channel: "C02", user: "U2", text: "Looking at the rate limiter today", ts: "1749203600.000200" },
      {
        channel: "C03",
        user: "U9",
        text: "deploy of web 2.3.1 failed: staging database is full",
        ts: "1749207200.000300",
      },
      {
        channel: "C03",
        user: "U3",
        text: "export timeout again for Globex, see api#203",
        ts: "1749210800.000400",
      },
      { channel: "C01", user: "U4", text: "Dark mode preview is up on staging", ts: "1749214400.000500" },
      { channel: "C03", user: "U9", text: "deploy of api 1.9.0 succeeded", ts: "1749218000.000600" },
    ],
    files: new Map([
      ["/reports/2025-05.csv", { content: REPORT_MAY, modified_at: "2025-06-01T06:00:00Z" }],
      ["/reports/2025-06.csv", { content: REPORT_JUNE, modified_at: "2025-06-08T06:00:00Z" }],
      ["/config/app.json", { content: APP_CONFIG, modified_at: "2025-05-28T17:30:00Z" }],
      ["/notes/standup.md", { content: STANDUP, modified_at: "2025-06-06T09:20:00Z" }],
      ["/notes/todo.md", { content: TODO, modified_at: "2025-06-02T08:00:00Z" }],
    ]),
    sentMail: [],
  };
}
