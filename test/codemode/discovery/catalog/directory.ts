/** Directory: the company's people, teams and groups (an identity provider). */

import type { ToolRow } from "./define.js";

const user = "User id or email";

export const DIRECTORY: readonly ToolRow[] = [
  ["get_user", "Get a directory user's account: email, status, groups and last sign-in.", { user }],
  [
    "get_user_profile",
    "Get a person's profile card: name, job title, department, manager, office and phone.",
    { user },
  ],
  [
    "search_users",
    "Search the company directory by name, title, department or location.",
    { query: "Words to match" },
  ],
  [
    "list_users",
    "List directory user accounts, optionally only active or suspended ones.",
    { "status?": "active|suspended|all: Status" },
  ],
  [
    "create_user",
    "Create a user account for a new employee and send the welcome email.",
    { email: "Work email", first_name: "First name", last_name: "Last name", "department?": "Department" },
  ],
  [
    "suspend_user",
    "Suspend a user's account so they can no longer sign in (offboarding).",
    { user, "reason?": "Why" },
  ],
  ["reset_password", "Reset a user's password and email them a link to set a new one.", { user }],
  ["get_manager", "Get a person's manager.", { user }],
  ["list_direct_reports", "List the people who report to a manager.", { user }],
  [
    "get_org_chart",
    "Get the reporting tree below a person, several levels deep.",
    { user, "depth?": "int: Levels" },
  ],
  [
    "list_groups",
    "List the groups and teams in the directory with member counts.",
    { "query?": "Name filter" },
  ],
  ["list_group_members", "List the members of a group or team.", { group: "Group id or email" }],
  ["add_group_member", "Add a user to a group or team.", { group: "Group id or email", user }],
  ["remove_group_member", "Remove a user from a group or team.", { group: "Group id or email", user }],
  [
    "list_user_devices",
    "List the laptops and phones enrolled for a user, with their compliance status.",
    { user },
  ],
];
