/** PagerDuty: incidents, on-call schedules, services, escalation policies. */

import type { ToolRow } from "./define.js";

const incident = "Incident id";

export const PAGERDUTY: readonly ToolRow[] = [
  [
    "list_incidents",
    "List PagerDuty incidents filtered by status, urgency, service or date range.",
    {
      "statuses?": "string[]: triggered, acknowledged, resolved",
      "service_ids?": "string[]: Only these services",
      "since?": "Start (ISO 8601)",
      "until?": "End (ISO 8601)",
    },
  ],
  [
    "get_incident",
    "Get one incident with its service, assignees, urgency, timeline and alert count.",
    { incident_id: incident },
  ],
  [
    "create_incident",
    "Trigger a new incident on a service, paging whoever is on call for it.",
    {
      service_id: "Service id",
      title: "What is wrong",
      "urgency?": "high|low: Urgency",
      "details?": "Longer description",
    },
  ],
  [
    "acknowledge_incident",
    "Acknowledge an incident so escalation stops while you work on it.",
    { incident_id: incident },
  ],
  [
    "resolve_incident",
    "Resolve an incident once the problem is fixed.",
    { incident_id: incident, "resolution?": "What fixed it" },
  ],
  [
    "reassign_incident",
    "Reassign an incident to another user or escalation policy.",
    { incident_id: incident, "user_id?": "New assignee", "escalation_policy_id?": "Or an escalation policy" },
  ],
  [
    "add_incident_note",
    "Add a note to an incident's timeline.",
    { incident_id: incident, note: "Note text" },
  ],
  ["list_incident_alerts", "List the alerts grouped into an incident.", { incident_id: incident }],
  [
    "list_oncalls",
    "List who is on call right now or in a time range, per escalation policy and schedule.",
    {
      "escalation_policy_ids?": "string[]: Only these policies",
      "schedule_ids?": "string[]: Only these schedules",
      "since?": "Start (default now)",
      "until?": "End (default now)",
    },
  ],
  [
    "list_schedules",
    "List on-call schedules with their time zones and layers.",
    { "query?": "Filter by schedule name" },
  ],
  [
    "get_schedule",
    "Get an on-call schedule's rotation: layers, users and the final rendered shifts for a range.",
    { schedule_id: "Schedule id", "since?": "Start", "until?": "End" },
  ],
  [
    "create_schedule_override",
    "Override an on-call schedule so someone else covers a shift.",
    { schedule_id: "Schedule id", user_id: "Who covers", start: "Start (ISO 8601)", end: "End (ISO 8601)" },
  ],
  [
    "list_services",
    "List PagerDuty services with their status, escalation policy and integrations.",
    { "query?": "Filter by service name, e.g. payments" },
  ],
  [
    "get_service",
    "Get one service: its escalation policy, alert grouping and incident urgency rules.",
    { service_id: "Service id" },
  ],
  [
    "list_escalation_policies",
    "List escalation policies: who is notified, in which order, after how long.",
    { "query?": "Filter by name" },
  ],
  [
    "get_escalation_policy",
    "Get one escalation policy's rules and the schedules and users at each level.",
    { escalation_policy_id: "Policy id" },
  ],
  [
    "list_users",
    "List PagerDuty users with their roles, teams and contact methods.",
    { "query?": "Filter by name or email" },
  ],
  [
    "list_maintenance_windows",
    "List maintenance windows during which services do not create incidents.",
    { "service_ids?": "string[]: Only these services" },
  ],
  [
    "create_maintenance_window",
    "Create a maintenance window that silences incidents on services for a time.",
    { service_ids: "string[]: Services", start: "Start", end: "End", "description?": "Why" },
  ],
  [
    "snooze_incident",
    "Snooze an acknowledged incident for a duration; it re-triggers afterwards.",
    { incident_id: incident, duration_seconds: "int: How long" },
  ],
  [
    "get_incident_log",
    "Get an incident's log entries: notifications sent, acknowledgements, escalations.",
    { incident_id: incident },
  ],
  [
    "send_status_update",
    "Send a status update about an incident to its stakeholders.",
    { incident_id: incident, message: "Update text" },
  ],
];
