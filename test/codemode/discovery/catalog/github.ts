/** GitHub: repositories, issues, pull requests, code, releases, actions. */

import type { ToolRow } from "./define.js";

const repo = "Repository as owner/name, e.g. acme/web";

export const GITHUB: readonly ToolRow[] = [
  [
    "list_repositories",
    "List the repositories an organization or user owns, newest push first.",
    {
      owner: "Organization or user login",
      "type?": "all|public|private|forks|sources: Which repositories to include",
      "per_page?": "int: Results per page (max 100)",
    },
  ],
  [
    "get_repository",
    "Get one repository's metadata: default branch, visibility, topics, star and fork counts.",
    { repo },
  ],
  [
    "create_repository",
    "Create a new repository for the authenticated user or an organization.",
    {
      name: "Repository name",
      "org?": "Organization to create it in; omit for a personal repository",
      "private?": "bool: Make the repository private",
      "description?": "Short description shown on the repository page",
    },
  ],
  [
    "fork_repository",
    "Fork a repository into your account or an organization.",
    { repo, "organization?": "Organization to fork into" },
  ],
  [
    "search_repositories",
    "Search public and accessible repositories by keywords, language, stars or topic.",
    { query: "GitHub search syntax, e.g. 'language:go stars:>100 cli'" },
  ],
  [
    "list_issues",
    "List issues in a repository, filtered by state, labels, assignee or milestone. Pull requests are excluded.",
    {
      repo,
      "state?": "open|closed|all: Issue state (default open)",
      "labels?": "string[]: Only issues with all of these labels",
      "assignee?": "Login of the assignee, or 'none'",
      "since?": "Only issues updated after this ISO 8601 time",
    },
  ],
  [
    "get_issue",
    "Get a single issue with its body, labels, assignees, milestone and reaction counts.",
    { repo, number: "int: Issue number" },
  ],
  [
    "create_issue",
    "Open a new issue in a repository, optionally with labels, assignees and a milestone.",
    {
      repo,
      title: "Issue title",
      "body?": "Markdown body",
      "labels?": "string[]: Label names",
      "assignees?": "string[]: Logins to assign",
    },
  ],
  [
    "update_issue",
    "Change an issue's title, body, state, labels or assignees.",
    {
      repo,
      number: "int: Issue number",
      "title?": "New title",
      "state?": "open|closed: New state",
      "labels?": "string[]: Replaces all labels",
    },
  ],
  [
    "close_issue",
    "Close an issue as completed or not planned, with an optional closing comment.",
    { repo, number: "int: Issue number", "reason?": "completed|not_planned: Why it is closed" },
  ],
  [
    "search_issues",
    "Search issues and pull requests across GitHub with the full search syntax (is:pr, author:, label:, in:title).",
    {
      query: "Search query, e.g. 'repo:acme/web is:pr is:merged login'",
      "sort?": "created|updated|comments: Sort field",
    },
  ],
  [
    "list_issue_comments",
    "List the comments on an issue or pull request, oldest first.",
    { repo, number: "int: Issue or pull request number" },
  ],
  [
    "add_issue_comment",
    "Post a comment on an issue or pull request conversation.",
    { repo, number: "int: Issue or pull request number", body: "Markdown comment text" },
  ],
  [
    "add_labels",
    "Add labels to an issue or pull request, creating none that do not exist.",
    { repo, number: "int: Issue or pull request number", labels: "string[]: Label names to add" },
  ],
  ["list_labels", "List every label defined in a repository with its color and description.", { repo }],
  [
    "list_milestones",
    "List a repository's milestones with their due dates and open/closed issue counts.",
    { repo, "state?": "open|closed|all: Milestone state" },
  ],
  [
    "list_pull_requests",
    "List pull requests in a repository by state, base branch or head branch.",
    {
      repo,
      "state?": "open|closed|all: Pull request state",
      "base?": "Base branch name",
      "head?": "Head branch as user:branch",
    },
  ],
  [
    "get_pull_request",
    "Get one pull request: title, body, author, branches, mergeability, review decision and linked issues.",
    { repo, number: "int: Pull request number" },
  ],
  [
    "create_pull_request",
    "Open a pull request from a head branch into a base branch.",
    {
      repo,
      title: "Pull request title",
      head: "Branch with the changes",
      base: "Branch to merge into",
      "body?": "Markdown description",
      "draft?": "bool: Open as a draft",
    },
  ],
  [
    "merge_pull_request",
    "Merge a pull request with a merge commit, squash or rebase.",
    { repo, number: "int: Pull request number", "method?": "merge|squash|rebase: Merge method" },
  ],
  [
    "list_pull_request_files",
    "List the files a pull request changes, with additions, deletions and patch excerpts.",
    { repo, number: "int: Pull request number" },
  ],
  [
    "get_pull_request_diff",
    "Get the unified diff of a pull request as text.",
    { repo, number: "int: Pull request number" },
  ],
  [
    "request_reviewers",
    "Request reviews on a pull request from users or teams.",
    {
      repo,
      number: "int: Pull request number",
      "reviewers?": "string[]: User logins",
      "team_reviewers?": "string[]: Team slugs",
    },
  ],
  [
    "create_review",
    "Submit a review on a pull request: approve, request changes or comment, with inline comments.",
    {
      repo,
      number: "int: Pull request number",
      event: "APPROVE|REQUEST_CHANGES|COMMENT: The review verdict",
      "body?": "Review summary",
    },
  ],
  [
    "list_reviews",
    "List the reviews submitted on a pull request and their states.",
    { repo, number: "int: Pull request number" },
  ],
  [
    "list_commits",
    "List commits on a branch or touching a path, newest first.",
    {
      repo,
      "sha?": "Branch name or commit SHA to start from",
      "path?": "Only commits touching this file path",
      "author?": "Author login or email",
    },
  ],
  [
    "get_commit",
    "Get one commit with its message, author, parents, changed files and stats.",
    { repo, sha: "Commit SHA" },
  ],
  [
    "compare_commits",
    "Compare two branches, tags or commits: ahead/behind counts, commits and changed files.",
    { repo, base: "Base ref", head: "Head ref" },
  ],
  ["list_branches", "List the branches of a repository and whether each is protected.", { repo }],
  [
    "create_branch",
    "Create a branch pointing at a commit or at another branch's head.",
    { repo, branch: "New branch name", "from?": "Branch or SHA to start from (default: the default branch)" },
  ],
  ["delete_branch", "Delete a branch from a repository.", { repo, branch: "Branch name" }],
  [
    "get_file_contents",
    "Read a file or list a directory in a repository at a branch, tag or commit.",
    { repo, path: "Path in the repository", "ref?": "Branch, tag or commit (default branch if omitted)" },
  ],
  [
    "create_or_update_file",
    "Create or update a single file in a repository with a commit.",
    {
      repo,
      path: "File path",
      content: "New file content",
      message: "Commit message",
      branch: "Branch to commit to",
      "sha?": "Blob SHA of the file being replaced",
    },
  ],
  [
    "search_code",
    "Search code across repositories for a string or symbol, with file paths and matching lines.",
    { query: "Code search query, e.g. 'useAuth repo:acme/web'" },
  ],
  ["list_releases", "List a repository's releases, newest first, with tags and publication dates.", { repo }],
  [
    "get_latest_release",
    "Get the latest published (non-draft, non-prerelease) release of a repository.",
    { repo },
  ],
  [
    "create_release",
    "Publish a release for a tag, with notes, optionally as a draft or prerelease.",
    {
      repo,
      tag: "Tag name, e.g. v1.4.0",
      "name?": "Release title",
      "notes?": "Release notes in Markdown",
      "draft?": "bool: Save as draft",
    },
  ],
  [
    "list_workflow_runs",
    "List GitHub Actions workflow runs with status, conclusion, branch and trigger.",
    {
      repo,
      "workflow?": "Workflow file name, e.g. ci.yml",
      "status?": "queued|in_progress|completed|failure|success: Run status",
    },
  ],
  [
    "rerun_workflow",
    "Re-run a GitHub Actions workflow run, or only its failed jobs.",
    { repo, run_id: "int: Workflow run id", "failed_only?": "bool: Re-run only the failed jobs" },
  ],
  [
    "get_workflow_run_logs",
    "Download the logs of a workflow run's jobs as text.",
    { repo, run_id: "int: Workflow run id" },
  ],
  ["list_collaborators", "List people with access to a repository and their permission levels.", { repo }],
  [
    "get_user",
    "Get a GitHub user's public profile: name, company, location, bio and follower counts.",
    { username: "GitHub login" },
  ],
  [
    "list_notifications",
    "List your unread GitHub notifications: mentions, review requests and subscribed threads.",
    { "all?": "bool: Include read notifications" },
  ],
  ["star_repository", "Star a repository for the authenticated user.", { repo }],
];
