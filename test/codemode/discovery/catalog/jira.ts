/** Jira: projects, issues, sprints, boards, worklogs. */

import type { ToolRow } from "./define.js";

const key = "Issue key, e.g. PAY-123";

export const JIRA: readonly ToolRow[] = [
  [
    "search_issues",
    "Search Jira issues with JQL and return key, summary, status, assignee and priority.",
    {
      jql: "JQL query, e.g. 'project = PAY AND status = \"In Progress\"'",
      "max_results?": "int: Page size (max 100)",
    },
  ],
  [
    "get_issue",
    "Get one Jira issue with its description, fields, status, comments and linked issues.",
    { issue_key: key },
  ],
  [
    "create_issue",
    "Create a Jira issue (story, task, bug or epic) in a project.",
    {
      project_key: "Project key, e.g. PAY",
      summary: "One-line summary",
      issue_type: "Story|Task|Bug|Epic: Issue type",
      "description?": "Description in Markdown",
      "priority?": "Highest|High|Medium|Low|Lowest: Priority",
    },
  ],
  [
    "update_issue",
    "Edit fields of a Jira issue: summary, description, priority, labels, components or custom fields.",
    { issue_key: key, fields: "JSON object of field names to new values" },
  ],
  ["delete_issue", "Permanently delete a Jira issue and its subtasks.", { issue_key: key }],
  [
    "transition_issue",
    "Move a Jira issue through its workflow, e.g. from To Do to In Progress or Done.",
    {
      issue_key: key,
      transition: "Transition name or id, e.g. 'Done'",
      "resolution?": "Resolution when closing, e.g. Fixed",
    },
  ],
  [
    "list_transitions",
    "List the workflow transitions available for an issue in its current status.",
    { issue_key: key },
  ],
  [
    "assign_issue",
    "Assign a Jira issue to a user, or unassign it.",
    { issue_key: key, account_id: "Assignee's account id; empty to unassign" },
  ],
  [
    "add_comment",
    "Add a comment to a Jira issue, optionally visible to one role only.",
    { issue_key: key, body: "Comment text", "visibility_role?": "Project role that may see it" },
  ],
  ["list_comments", "List the comments on a Jira issue, oldest first.", { issue_key: key }],
  [
    "add_worklog",
    "Log time spent working on a Jira issue.",
    {
      issue_key: key,
      time_spent: "Duration, e.g. '2h 30m'",
      "started?": "When the work started (ISO 8601)",
      "comment?": "What was done",
    },
  ],
  ["list_worklogs", "List the time logged on a Jira issue, by person and day.", { issue_key: key }],
  [
    "link_issues",
    "Link two Jira issues with a link type such as blocks, relates to or duplicates.",
    {
      inward_issue: "Issue key of the inward side",
      outward_issue: "Issue key of the outward side",
      link_type: "Blocks|Relates|Duplicate|Cloners: Link type",
    },
  ],
  ["list_projects", "List the Jira projects you can see, with keys, leads and project types.", {}],
  [
    "get_project",
    "Get a Jira project's details: key, lead, issue types, components and versions.",
    { project_key: "Project key" },
  ],
  [
    "list_project_versions",
    "List the fix versions (releases) of a Jira project with release dates.",
    { project_key: "Project key" },
  ],
  [
    "create_version",
    "Create a fix version in a Jira project for release planning.",
    {
      project_key: "Project key",
      name: "Version name, e.g. 2.3.0",
      "release_date?": "Planned release date (YYYY-MM-DD)",
    },
  ],
  [
    "list_boards",
    "List Scrum and Kanban boards, optionally for one project.",
    { "project_key?": "Only boards of this project" },
  ],
  [
    "list_sprints",
    "List the sprints of a board: active, future or closed.",
    { board_id: "int: Board id", "state?": "active|future|closed: Sprint state" },
  ],
  [
    "get_sprint_issues",
    "List the issues in a sprint with their status and story points.",
    { sprint_id: "int: Sprint id" },
  ],
  [
    "create_sprint",
    "Create a new sprint on a Scrum board with start and end dates.",
    {
      board_id: "int: Board id",
      name: "Sprint name",
      "start_date?": "Start (ISO 8601)",
      "end_date?": "End (ISO 8601)",
    },
  ],
  [
    "move_issues_to_sprint",
    "Move issues into a sprint, removing them from the backlog or another sprint.",
    { sprint_id: "int: Sprint id", issue_keys: "string[]: Issue keys to move" },
  ],
  ["get_backlog", "List the backlog issues of a board in rank order.", { board_id: "int: Board id" }],
  [
    "add_watcher",
    "Add a user as a watcher of a Jira issue so they get notified of changes.",
    { issue_key: key, account_id: "Watcher's account id" },
  ],
  [
    "find_users",
    "Find Jira users by name or email to get their account ids.",
    { query: "Name or email fragment" },
  ],
  [
    "get_issue_changelog",
    "Get the history of field changes on a Jira issue: who changed what and when.",
    { issue_key: key },
  ],
  [
    "add_attachment",
    "Attach a file to a Jira issue.",
    { issue_key: key, file_name: "Name of the attachment", content_base64: "File content, base64" },
  ],
  ["list_filters", "List your saved Jira filters and their JQL.", {}],
];
