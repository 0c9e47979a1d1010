/**
 * The test catalog: 340 realistic tools across 16 namespaces, named `<namespace>__<tool>` as `cordon mcp`
 * names an upstream server's tools, with near-duplicates inside and across namespaces
 * (`shop__list_orders` / `shop__list_order_items`, `directory__get_user` / `directory__get_user_profile`,
 * `github__search_issues` / `jira__search_issues`).
 */

import type { AnyTool } from "cordon";
import { CALENDAR } from "./calendar.js";
import { CRM } from "./crm.js";
import { namespaceTools } from "./define.js";
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

/** Every tool of the catalog, namespace by namespace. */
export function catalogTools(): AnyTool[] {
  return [
    ...namespaceTools("github", GITHUB),
    ...namespaceTools("jira", JIRA),
    ...namespaceTools("calendar", CALENDAR),
    ...namespaceTools("slack", SLACK),
    ...namespaceTools("gmail", GMAIL),
    ...namespaceTools("drive", DRIVE),
    ...namespaceTools("pagerduty", PAGERDUTY),
    ...namespaceTools("stripe", STRIPE),
    ...namespaceTools("crm", CRM),
    ...namespaceTools("shop", SHOP),
    ...namespaceTools("files", FILES),
    ...namespaceTools("directory", DIRECTORY),
    ...namespaceTools("notion", NOTION),
    ...namespaceTools("monitoring", MONITORING),
    ...namespaceTools("zoom", ZOOM),
    ...namespaceTools("hr", HR),
  ];
}
