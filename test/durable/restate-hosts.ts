/**
 * "Hosts" for the Restate test across machines: Linux network namespaces, each with its own address on
 * a veth link to this machine (a /30 in 10.214.0.0/16 made by the test). A service endpoint started in
 * one (`ip netns exec`) listens on that address alone, and the Restate server, which stays on this
 * machine, reaches it over the link, as it would reach an endpoint on another host. Namespaces and links
 * are named after the test process (`cordon-rst-<pid>-<letter>`, `rs<pid><letter>h`), so that those of a
 * run killed before its clean-up are removed by the next one. Needs root and iproute2.
 */

import { execFileSync, spawnSync } from "node:child_process";

/** One namespace and its link. */
export interface Host {
  /** The namespace's name (`ip netns exec <namespace> …`). */
  namespace: string;
  /** The namespace's own address: where its endpoint listens. */
  address: string;
  /** The link's end on this machine (deleting it deletes the pair). */
  link: string;
}

const NAMESPACE = /^cordon-rst-(\d+)-[a-z]$/;
const LINK = /^\d+:\s+(rs(\d+)[a-z]h)[@:]/;

function ip(args: string[]): string {
  return execFileSync("ip", args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

/** Runs `ip args`, ignoring a failure (a clean-up of something that may be gone already). */
function ipQuietly(args: string[]): void {
  spawnSync("ip", args, { stdio: "ignore" });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Why namespaces cannot be made here, or undefined when `ip netns` works (root, iproute2). */
export function namespacesProblem(): string | undefined {
  if (process.getuid?.() !== 0) return "the test process is not root";
  const listed = spawnSync("ip", ["netns", "list"], { encoding: "utf8" });
  if (listed.error) return `ip could not be run (${listed.error.message}): install iproute2`;
  if (listed.status !== 0) return `ip netns list failed: ${listed.stderr.trim()}`;
  return undefined;
}

/** Removes the namespaces and links of earlier runs whose process is gone. */
export function removeStaleHosts(): void {
  for (const line of ip(["netns", "list"]).split("\n")) {
    const name = line.split(" ")[0] ?? "";
    const pid = NAMESPACE.exec(name)?.[1];
    if (pid !== undefined && !alive(Number(pid))) ipQuietly(["netns", "del", name]);
  }
  for (const line of ip(["-o", "link", "show"]).split("\n")) {
    const [, link, pid] = LINK.exec(line) ?? [];
    if (link !== undefined && !alive(Number(pid))) ipQuietly(["link", "del", link]);
  }
}

/** /30 blocks in 10.214.0.0/16 that no address of this machine is in, from a place of this process's. */
function freeSubnets(count: number): [number, number][] {
  const used = new Set(
    [...ip(["-4", "-o", "addr", "show"]).matchAll(/inet 10\.214\.(\d+)\.(\d+)/g)].map(
      ([, third, fourth]) => `${third}.${Number(fourth) & ~3}`,
    ),
  );
  const free: [number, number][] = [];
  for (let i = 0; free.length < count && i < 256 * 64; i++) {
    const block = (process.pid * 4 + i) % (256 * 64);
    const subnet: [number, number] = [Math.floor(block / 64), (block % 64) * 4];
    if (!used.has(subnet.join("."))) free.push(subnet);
  }
  return free;
}

/**
 * Makes one namespace per letter, each linked to this machine by a veth pair with a /30 of its own:
 * `10.214.x.y+1` on this machine's end, `10.214.x.y+2` in the namespace. Undoes what it made on failure.
 */
export function makeHosts(letters: string[]): Host[] {
  const subnets = freeSubnets(letters.length);
  const hosts: Host[] = [];
  try {
    letters.forEach((letter, i) => {
      const [third, fourth] = subnets[i]!;
      const host: Host = {
        namespace: `cordon-rst-${process.pid}-${letter}`,
        address: `10.214.${third}.${fourth + 2}`,
        link: `rs${process.pid}${letter}h`,
      };
      const inside = `rs${process.pid}${letter}n`;
      hosts.push(host);
      ip(["netns", "add", host.namespace]);
      ip(["link", "add", host.link, "type", "veth", "peer", "name", inside]);
      ip(["link", "set", inside, "netns", host.namespace]);
      ip(["addr", "add", `10.214.${third}.${fourth + 1}/30`, "dev", host.link]);
      ip(["link", "set", host.link, "up"]);
      const there = (args: string[]) => ip(["netns", "exec", host.namespace, "ip", ...args]);
      there(["addr", "add", `${host.address}/30`, "dev", inside]);
      there(["link", "set", inside, "up"]);
      there(["link", "set", "lo", "up"]);
    });
  } catch (error) {
    removeHosts(hosts);
    throw error;
  }
  return hosts;
}

/** Removes the namespaces and their links (what is gone already is skipped). */
export function removeHosts(hosts: readonly Host[]): void {
  for (const host of hosts) {
    ipQuietly(["netns", "del", host.namespace]);
    ipQuietly(["link", "del", host.link]);
  }
}
