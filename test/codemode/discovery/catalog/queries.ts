/**
 * Needs written the way a model phrases them when it looks for a tool, each with the tool(s) that answer
 * it. Written for the catalog before the ranking was measured on them; a query names every tool a
 * correct answer needs (recall counts the share of them found in the first five).
 */

/** One query and the tools that answer it. */
export interface CatalogQuery {
  query: string;
  expected: readonly string[];
}

export const CATALOG_QUERIES: readonly CatalogQuery[] = [
  // Calendar
  { query: "meetings tomorrow", expected: ["calendar__list_events"] },
  { query: "what's on my calendar next week", expected: ["calendar__list_events"] },
  { query: "schedule a meeting with Anna and Ben", expected: ["calendar__create_event"] },
  { query: "when are Anna and Ben both free", expected: ["calendar__find_free_slots"] },
  { query: "cancel my 3pm appointment", expected: ["calendar__delete_event"] },
  { query: "decline the invite", expected: ["calendar__respond_to_event"] },
  { query: "book a conference room", expected: ["calendar__book_room"] },
  { query: "reschedule the standup to 10am", expected: ["calendar__update_event"] },
  // On call, incidents
  { query: "who is on call for payments", expected: ["pagerduty__list_oncalls"] },
  { query: "page the on-call engineer", expected: ["pagerduty__create_incident"] },
  { query: "acknowledge the incident", expected: ["pagerduty__acknowledge_incident"] },
  { query: "open incidents right now", expected: ["pagerduty__list_incidents"] },
  { query: "swap my on-call shift with Sam", expected: ["pagerduty__create_schedule_override"] },
  { query: "mark the outage as resolved", expected: ["pagerduty__resolve_incident"] },
  // Billing
  { query: "refund a charge", expected: ["stripe__create_refund"] },
  { query: "cancel the customer's subscription", expected: ["stripe__cancel_subscription"] },
  { query: "unpaid invoices", expected: ["stripe__list_invoices"] },
  { query: "how much money is in our stripe account", expected: ["stripe__get_balance"] },
  { query: "chargebacks we need to respond to", expected: ["stripe__list_disputes"] },
  { query: "charge the customer's saved card", expected: ["stripe__create_payment_intent"] },
  { query: "give the customer 20% off", expected: ["stripe__create_coupon"] },
  { query: "when does the next payout arrive", expected: ["stripe__list_payouts"] },
  // Shop
  { query: "items in order A1234", expected: ["shop__list_order_items"] },
  { query: "all orders from customer c-7 this month", expected: ["shop__list_orders"] },
  { query: "refund order A1234", expected: ["shop__refund_order"] },
  { query: "where is my package", expected: ["shop__track_shipment"] },
  { query: "products running out of stock", expected: ["shop__list_low_stock"] },
  { query: "customer wants to send back a damaged item", expected: ["shop__create_return"] },
  { query: "daily revenue last week", expected: ["shop__get_sales_report"] },
  // GitHub
  { query: "find the PR that fixed the login bug", expected: ["github__search_issues"] },
  { query: "open pull requests in acme/web", expected: ["github__list_pull_requests"] },
  { query: "file a bug in the web repo", expected: ["github__create_issue"] },
  { query: "what changed in pull request 42", expected: ["github__list_pull_request_files"] },
  { query: "approve the PR", expected: ["github__create_review"] },
  { query: "merge PR 42", expected: ["github__merge_pull_request"] },
  { query: "read the README of acme/web", expected: ["github__get_file_contents"] },
  { query: "why did CI fail", expected: ["github__list_workflow_runs"] },
  { query: "where is useAuth defined in our code", expected: ["github__search_code"] },
  { query: "latest release of acme/web", expected: ["github__get_latest_release"] },
  { query: "comment on issue 17", expected: ["github__add_issue_comment"] },
  // Jira
  { query: "jira tickets assigned to me in progress", expected: ["jira__search_issues"] },
  { query: "move PAY-123 to done", expected: ["jira__transition_issue"] },
  { query: "log 2 hours on PAY-123", expected: ["jira__add_worklog"] },
  { query: "what's in the current sprint", expected: ["jira__list_sprints", "jira__get_sprint_issues"] },
  { query: "create a jira bug for the checkout crash", expected: ["jira__create_issue"] },
  { query: "who changed the priority of PAY-9", expected: ["jira__get_issue_changelog"] },
  // Slack
  { query: "post a message in #payments", expected: ["slack__post_message"] },
  { query: "DM Sam on slack", expected: ["slack__send_direct_message"] },
  { query: "remind me to review the doc at 4pm", expected: ["slack__create_reminder"] },
  { query: "read the latest messages in #ops", expected: ["slack__get_channel_history"] },
  { query: "find slack messages about the deploy failure", expected: ["slack__search_messages"] },
  { query: "make a new channel for the launch", expected: ["slack__create_channel"] },
  // Email
  { query: "emails from Anna this week", expected: ["gmail__search_emails"] },
  { query: "send an email to the customer", expected: ["gmail__send_email"] },
  { query: "reply to that email", expected: ["gmail__reply_to_email"] },
  { query: "set an out of office auto reply", expected: ["gmail__set_vacation_responder"] },
  { query: "archive these messages", expected: ["gmail__modify_labels"] },
  // Drive, docs, files
  { query: "find the Q3 planning doc", expected: ["drive__search_files"] },
  { query: "read a google doc", expected: ["drive__read_document"] },
  { query: "add rows to the budget spreadsheet", expected: ["drive__append_spreadsheet_rows"] },
  { query: "give Ben edit access to the file", expected: ["drive__share_file"] },
  { query: "read a file in the workspace", expected: ["files__read_file"] },
  { query: "search the code for TODO comments", expected: ["files__grep", "github__search_code"] },
  { query: "rename a file", expected: ["drive__rename_file", "files__move_path"] },
  { query: "last 100 lines of the server log", expected: ["files__tail_file"] },
  // CRM
  { query: "look up the contact for Acme", expected: ["crm__search_contacts"] },
  { query: "deals closing this quarter", expected: ["crm__list_deals"] },
  { query: "mark the deal as won", expected: ["crm__update_deal_stage"] },
  { query: "log a call with the client", expected: ["crm__log_activity"] },
  { query: "convert the lead into an opportunity", expected: ["crm__convert_lead"] },
  { query: "is this account at risk of churning", expected: ["crm__get_customer_health"] },
  // People
  { query: "who is Ben's manager", expected: ["directory__get_manager"] },
  { query: "Anna's job title and phone number", expected: ["directory__get_user_profile"] },
  { query: "offboard an employee", expected: ["directory__suspend_user"] },
  { query: "add Sam to the payments team", expected: ["directory__add_group_member"] },
  { query: "who is out on vacation next week", expected: ["hr__list_time_off"] },
  { query: "book vacation days", expected: ["hr__request_time_off"] },
  { query: "how many vacation days do I have left", expected: ["hr__get_time_off_balance"] },
  { query: "submit a receipt for the team lunch", expected: ["hr__submit_expense"] },
  // Monitoring, notes, video
  { query: "error logs for checkout in the last hour", expected: ["monitoring__search_logs"] },
  { query: "cpu usage of the api service", expected: ["monitoring__query_metrics"] },
  { query: "which alerts are firing", expected: ["monitoring__list_monitors"] },
  { query: "silence the disk space alert until tomorrow", expected: ["monitoring__mute_monitor"] },
  { query: "rows of the roadmap database in notion", expected: ["notion__query_database"] },
  { query: "transcript of yesterday's zoom call", expected: ["zoom__get_meeting_transcript"] },
  { query: "create a zoom link for the interview", expected: ["zoom__create_meeting"] },
];
