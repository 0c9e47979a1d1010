/**
 * The test catalog: 340 realistic tools across 16 namespaces, named `<namespace>__<tool>` as `cordon mcp`
 * names an upstream server's tools, with near-duplicates inside and across namespaces
 * (`shop__list_orders` / `shop__list_order_items`, `directory__get_user` / `directory__get_user_profile`,
 * `github__search_issues` / `jira__search_issues`).
 */

import type { AnyTool } from "cordon";
import { CALENDAR } from "./calendar.js";
import { CRM } from "./crm.js";
import { namespaceTools, type ToolRow } from "./define.js";
import { DIRECTORY } from "./directory.js";
import { DRIVE } from "./drive.js";
import { FILES } from "./files.js";
import { GITHUB } from "./github.js";
import { GMAIL } from "./gmail.js";
import { HR } from "./hr.js";
import { JIRA } from "./jira.js";
import { MONITORING } from "./monitoring.js";
import { NOTION } from "./notion.js";
import { PAGERDUTY } from "./pagerduty.js";
import { SHOP } from "./shop.js";
import { SLACK } from "./slack.js";
import { STRIPE } from "./stripe.js";
import { ZOOM } from "./zoom.js";

/** The catalog's namespaces and their rows, in order. */
export const CATALOG_NAMESPACES: readonly (readonly [namespace: string, rows: readonly ToolRow[]])[] = [
  ["github", GITHUB],
  ["jira", JIRA],
  ["calendar", CALENDAR],
  ["slack", SLACK],
  ["gmail", GMAIL],
  ["drive", DRIVE],
  ["pagerduty", PAGERDUTY],
  ["stripe", STRIPE],
  ["crm", CRM],
  ["shop", SHOP],
  ["files", FILES],
  ["directory", DIRECTORY],
  ["notion", NOTION],
  ["monitoring", MONITORING],
  ["zoom", ZOOM],
  ["hr", HR],
];

/** Every tool of the catalog, namespace by namespace. */
export function catalogTools(): AnyTool[] {
  return CATALOG_NAMESPACES.flatMap(([namespace, rows]) => namespaceTools(namespace, rows));
}
