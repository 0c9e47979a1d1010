/** How the process doing sandbox work is doing: what a sandbox host answers to a ping. */

import { readFileSync } from "node:fs";
import type { HostHealth } from "../contract/index.js";

/** This process's memory, CPU time and (on Linux) thread count. */
export function processHealth(): HostHealth {
  const cpu = process.cpuUsage();
  const health: HostHealth = {
    rssMb: Math.round(process.memoryUsage.rss() / 2 ** 20),
    cpuMs: Math.round((cpu.user + cpu.system) / 1000),
  };
  const threads = threadCount();
  if (threads !== undefined) health.threads = threads;
  return health;
}

/** The process's thread count from /proc (Linux); undefined elsewhere. */
function threadCount(): number | undefined {
  try {
    const match = /^Threads:\s+(\d+)$/m.exec(readFileSync("/proc/self/status", "utf8"));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}
