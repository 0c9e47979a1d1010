/** Monitoring: metrics, logs, monitors, dashboards, deploys (a Datadog-like service). */

import type { ToolRow } from "./define.js";

export const MONITORING: readonly ToolRow[] = [
  [
    "query_metrics",
    "Query a time series metric with aggregation over a time range, e.g. avg:system.cpu.user{service:api}.",
    { query: "Metric query", from: "Start (ISO 8601 or relative like -1h)", "to?": "End (default now)" },
  ],
  [
    "list_metrics",
    "List the metric names reported in the last day, filtered by prefix or tag.",
    { "prefix?": "Name prefix", "tag?": "Tag filter" },
  ],
  [
    "search_logs",
    "Search logs by service, status and text within a time range, newest first.",
    {
      query: "Log query, e.g. 'service:checkout status:error timeout'",
      from: "Start",
      "to?": "End",
      "limit?": "int: How many lines",
    },
  ],
  [
    "aggregate_logs",
    "Count or group log events, e.g. errors per service over the last hour.",
    { query: "Log query", group_by: "Facet, e.g. service", from: "Start" },
  ],
  [
    "list_monitors",
    "List alerting monitors with their state (OK, Warn, Alert, No Data) and tags.",
    { "state?": "ok|warn|alert|no_data: State", "tags?": "string[]: Tags" },
  ],
  [
    "get_monitor",
    "Get a monitor's query, thresholds, notification targets and recent state changes.",
    { monitor_id: "int: Monitor id" },
  ],
  [
    "create_monitor",
    "Create a monitor that alerts when a metric or log query crosses a threshold.",
    {
      name: "Monitor name",
      query: "Monitor query",
      message: "Notification text with @mentions",
      "critical?": "number: Critical threshold",
    },
  ],
  [
    "mute_monitor",
    "Mute a monitor's notifications until a time.",
    { monitor_id: "int: Monitor id", "until?": "End of mute (ISO 8601)" },
  ],
  ["list_dashboards", "List dashboards with titles, authors and URLs.", { "query?": "Title filter" }],
  [
    "get_dashboard",
    "Get a dashboard's widgets and the queries behind them.",
    { dashboard_id: "Dashboard id" },
  ],
  [
    "list_apm_services",
    "List APM services with request rate, error rate and latency percentiles.",
    { "env?": "Environment, e.g. prod" },
  ],
  ["get_trace", "Get one distributed trace with its spans, durations and errors.", { trace_id: "Trace id" }],
  [
    "list_deployments",
    "List recent deployments per service and version, to correlate with errors.",
    { "service?": "Service name" },
  ],
  [
    "get_slo_status",
    "Get the status and remaining error budget of service level objectives.",
    { "slo_ids?": "string[]: SLO ids" },
  ],
  [
    "create_event",
    "Post an event (deploy, config change, incident) to the monitoring event stream.",
    { title: "Event title", text: "Details", "tags?": "string[]: Tags" },
  ],
];
