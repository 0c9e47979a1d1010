// Which sandbox-host processes this process has started, read from /proc (Linux): tests use it to see
// that processes are replaced, and that none is left behind.
import { readdirSync, readFileSync } from "node:fs";

/** The pids of this process's sandbox-host children. */
export function sandboxChildren(): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (
        parent === process.pid &&
        readFileSync(`/proc/${entry}/cmdline`, "utf8").includes("sandbox/program/main")
      ) {
        pids.push(Number(entry));
      }
    } catch {
      // Gone while read.
    }
  }
  return pids;
}
