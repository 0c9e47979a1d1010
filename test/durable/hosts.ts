/**
 * "Hosts" for the fleet test: Linux network namespaces, each with its own address on a veth link to
 * this machine (a /30 in 10.213.0.0/16 made by the test), and a relay on this machine's end of each
 * link to the Postgres server, which keeps listening on 127.0.0.1 only. A process started in a
 * namespace (`ip netns exec`) reaches the database over its link and nothing else: its own loopback has
 * no server. The namespaces and links are named after the test process (`cordon-fleet-<pid>-<host>`,
 * `cf<pid><host>h`), so that those of a run that was killed before it could clean up are found and
 * removed by the next one. Needs root and iproute2.
 */

import { execFileSync, spawnSync } from "node:child_process";
import { connect, createServer, type Server, type Socket } from "node:net";

/** One namespace and its link. */
export interface Host {
  /** The namespace's name (`ip netns exec <namespace> …`). */
  namespace: string;
  /** The namespace's own address. */
  address: string;
  /** This machine's end of the link: where the relay to Postgres listens. */
  gateway: string;
  /** The link's end on this machine (deleting it deletes the pair). */
  link: string;
}

/** Namespaces and links of this process: `cordon-fleet-<pid>-<letter>`, `cf<pid><letter>h`. */
const NAMESPACE = /^cordon-fleet-(\d+)-[a-z]$/;
const LINK = /^\d+:\s+(cf(\d+)[a-z]h)[@:]/;

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

/** Removes the namespaces and links of fleet tests whose process is gone (killed before its clean-up). */
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

/** /30 blocks in 10.213.0.0/16 that no address of this machine is in, from a place of this process's. */
function freeSubnets(count: number): string[] {
  const used = new Set(
    [...ip(["-4", "-o", "addr", "show"]).matchAll(/inet 10\.213\.(\d+)\.(\d+)/g)].map(
      ([, third, fourth]) => `${third}.${Number(fourth) & ~3}`,
    ),
  );
  const free: string[] = [];
  for (let i = 0; free.length < count && i < 256 * 64; i++) {
    const block = (process.pid * 4 + i) % (256 * 64);
    const subnet = `${Math.floor(block / 64)}.${(block % 64) * 4}`;
    if (!used.has(subnet)) free.push(subnet);
  }
  return free;
}

/**
 * Makes one namespace per letter, each linked to this machine by a veth pair with a /30 of its own:
 * `10.213.x.y+1` on this machine's end, `10.213.x.y+2` in the namespace. Undoes what it made on failure.
 */
export function makeHosts(letters: string[]): Host[] {
  const subnets = freeSubnets(letters.length);
  const hosts: Host[] = [];
  try {
    letters.forEach((letter, i) => {
      const [third, fourth] = subnets[i]!.split(".").map(Number) as [number, number];
      const host: Host = {
        namespace: `cordon-fleet-${process.pid}-${letter}`,
        address: `10.213.${third}.${fourth + 2}`,
        gateway: `10.213.${third}.${fourth + 1}`,
        link: `cf${process.pid}${letter}h`,
      };
      const inside = `cf${process.pid}${letter}n`;
      hosts.push(host);
      ip(["netns", "add", host.namespace]);
      ip(["link", "add", host.link, "type", "veth", "peer", "name", inside]);
      ip(["link", "set", inside, "netns", host.namespace]);
      ip(["addr", "add", `${host.gateway}/30`, "dev", host.link]);
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

/** Whether `namespace` exists. */
export function namespaceExists(namespace: string): boolean {
  return ip(["netns", "list"])
    .split("\n")
    .some((line) => line.split(" ")[0] === namespace);
}

/** A relay from one host's gateway to the database; `peers` are the addresses it was reached from. */
export interface Relay {
  port: number;
  peers: Set<string>;
  close(): Promise<void>;
}

/**
 * Listens on `host.gateway` (this machine's end of the host's link, nothing else) and pipes each
 * connection to `target`, as a TCP proxy in front of a database does: the server itself is untouched.
 */
export async function relay(host: Host, target: { host: string; port: number }): Promise<Relay> {
  const peers = new Set<string>();
  const sockets = new Set<Socket>();
  const server: Server = createServer((inbound) => {
    peers.add(inbound.remoteAddress ?? "");
    const outbound = connect(target.port, target.host);
    for (const socket of [inbound, outbound]) {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      // A worker killed with SIGKILL resets its side: the other side goes with it.
      socket.on("error", () => {
        inbound.destroy();
        outbound.destroy();
      });
    }
    inbound.pipe(outbound);
    outbound.pipe(inbound);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ host: host.gateway, port: 0 }, resolve);
  });
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("the relay has no port");
  return {
    port: address.port,
    peers,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
