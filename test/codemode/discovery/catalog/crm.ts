/** CRM: contacts, leads, accounts, deals, activities. */

import type { ToolRow } from "./define.js";

export const CRM: readonly ToolRow[] = [
  ["search_contacts", "Search CRM contacts by name, email, company or phone.", { query: "Words to match" }],
  [
    "get_contact",
    "Get a contact with their company, owner, lifecycle stage and recent activity.",
    { contact_id: "Contact id" },
  ],
  [
    "create_contact",
    "Create a contact with name, email, phone and company.",
    {
      first_name: "First name",
      last_name: "Last name",
      "email?": "Email",
      "phone?": "Phone",
      "account_id?": "Company account it belongs to",
    },
  ],
  [
    "update_contact",
    "Update a contact's fields such as title, phone, owner or lifecycle stage.",
    { contact_id: "Contact id", fields: "JSON object of fields to change" },
  ],
  [
    "merge_contacts",
    "Merge two duplicate contacts into one, keeping the primary's values.",
    { primary_id: "Contact to keep", duplicate_id: "Contact merged into it" },
  ],
  [
    "list_leads",
    "List leads by status (new, working, qualified, unqualified), source or owner.",
    { "status?": "new|working|qualified|unqualified: Status", "owner_id?": "Sales rep id" },
  ],
  [
    "create_lead",
    "Create a sales lead from a name, company and source.",
    {
      name: "Person's name",
      company: "Company name",
      "email?": "Email",
      "source?": "web|referral|event|outbound: Where it came from",
    },
  ],
  [
    "convert_lead",
    "Convert a qualified lead into a contact, an account and optionally a deal.",
    { lead_id: "Lead id", "create_deal?": "bool: Also open a deal" },
  ],
  [
    "list_accounts",
    "List company accounts with industry, size, owner and annual revenue.",
    { "industry?": "Industry filter", "owner_id?": "Account owner" },
  ],
  [
    "get_account",
    "Get a company account with its contacts, open deals and support tickets.",
    { account_id: "Account id" },
  ],
  [
    "create_account",
    "Create a company account in the CRM.",
    { name: "Company name", "domain?": "Website domain", "industry?": "Industry" },
  ],
  [
    "list_deals",
    "List deals in the sales pipeline by stage, owner or expected close date.",
    {
      "stage?": "Pipeline stage name",
      "owner_id?": "Owner id",
      "closing_before?": "Expected close before (YYYY-MM-DD)",
    },
  ],
  [
    "get_deal",
    "Get a deal with its amount, stage, probability, contacts and history.",
    { deal_id: "Deal id" },
  ],
  [
    "create_deal",
    "Create a deal for an account with an amount, stage and expected close date.",
    {
      account_id: "Account id",
      name: "Deal name",
      amount: "number: Value",
      "stage?": "Stage",
      "close_date?": "Expected close date",
    },
  ],
  [
    "update_deal_stage",
    "Move a deal to another pipeline stage, e.g. to Closed Won or Closed Lost.",
    { deal_id: "Deal id", stage: "New stage", "lost_reason?": "Why it was lost" },
  ],
  [
    "get_pipeline_summary",
    "Summarize the sales pipeline: deal count and total value per stage, and the forecast.",
    { "owner_id?": "Only this rep's deals" },
  ],
  [
    "log_activity",
    "Log a call, meeting or email with a contact or deal in the CRM.",
    {
      type: "call|meeting|email|note: Activity type",
      subject: "Subject",
      "contact_id?": "Contact",
      "deal_id?": "Deal",
    },
  ],
  [
    "list_activities",
    "List logged calls, meetings, emails and notes for a contact, account or deal.",
    { "contact_id?": "Contact", "account_id?": "Account", "deal_id?": "Deal" },
  ],
  [
    "create_task",
    "Create a follow-up task for a sales rep, due on a date.",
    {
      subject: "What to do",
      due_date: "Due (YYYY-MM-DD)",
      "owner_id?": "Assignee",
      "contact_id?": "Related contact",
    },
  ],
  [
    "list_tasks",
    "List open follow-up tasks by owner or due date.",
    { "owner_id?": "Owner", "due_before?": "Due before (YYYY-MM-DD)" },
  ],
  ["complete_task", "Mark a CRM task as completed.", { task_id: "Task id" }],
  [
    "add_note",
    "Attach a note to a contact, account or deal.",
    { body: "Note text", "contact_id?": "Contact", "account_id?": "Account", "deal_id?": "Deal" },
  ],
  ["list_owners", "List the sales reps and other users who can own CRM records.", {}],
  [
    "list_support_tickets",
    "List customer support tickets for an account with status and priority.",
    { "account_id?": "Account id", "status?": "open|pending|solved|closed: Status" },
  ],
  [
    "create_support_ticket",
    "Open a customer support ticket for a contact.",
    {
      contact_id: "Contact id",
      subject: "Subject",
      description: "What the customer reported",
      "priority?": "low|normal|high|urgent: Priority",
    },
  ],
  [
    "get_customer_health",
    "Get an account's health score with usage, support and payment signals.",
    { account_id: "Account id" },
  ],
  ["export_report", "Export a saved CRM report as CSV.", { report_id: "Report id" }],
  [
    "enrich_company",
    "Look up firmographic data (size, industry, location, funding) for a company domain.",
    { domain: "Company domain, e.g. acme.com" },
  ],
];
