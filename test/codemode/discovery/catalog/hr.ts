/** HR: time off, payroll, employee records, hiring. */

import type { ToolRow } from "./define.js";

export const HR: readonly ToolRow[] = [
  [
    "request_time_off",
    "Request vacation, sick leave or other time off for dates.",
    {
      type: "vacation|sick|parental|unpaid: Kind of leave",
      start_date: "First day",
      end_date: "Last day",
      "note?": "Note for the approver",
    },
  ],
  [
    "get_time_off_balance",
    "Get how many vacation and sick days someone has left this year.",
    { "employee_id?": "Employee (default you)" },
  ],
  [
    "list_time_off",
    "List approved and pending time off across a team for a date range, to see who is away.",
    { "team?": "Team name", from: "Start date", to: "End date" },
  ],
  [
    "approve_time_off",
    "Approve or deny a pending time-off request.",
    { request_id: "Request id", decision: "approve|deny: Decision" },
  ],
  [
    "get_employee",
    "Get an employee's HR record: start date, role, level, location and employment type.",
    { employee_id: "Employee id" },
  ],
  [
    "list_payslips",
    "List an employee's payslips with gross and net pay per month.",
    { "employee_id?": "Employee (default you)", "year?": "int: Year" },
  ],
  [
    "list_job_openings",
    "List open positions with hiring manager, department and candidate counts.",
    { "department?": "Department" },
  ],
  [
    "list_candidates",
    "List candidates for a job opening by stage (applied, screen, interview, offer).",
    { job_id: "Job opening id", "stage?": "applied|screen|interview|offer|hired|rejected: Stage" },
  ],
  [
    "schedule_interview",
    "Schedule an interview between a candidate and interviewers.",
    { candidate_id: "Candidate id", interviewers: "string[]: Interviewer emails", start: "Start (ISO 8601)" },
  ],
  [
    "submit_expense",
    "Submit an expense report with an amount, category and receipt.",
    {
      amount: "number: Amount",
      currency: "Currency",
      category: "travel|meals|equipment|software|other: Category",
      "receipt_base64?": "Receipt image",
    },
  ],
];
