/**
 * "Hosts" for the tests across machines: Linux network namespaces, each with its own address on a veth
 * link to this machine (a /30 of a 10.x.0.0/16 of the test's own). A process started in a namespace
 * (`ip netns exec`) reaches this machine over its link and nothing else: its own loopback has no server.
 * The fleet test puts a relay on this machine's end of each link to the Postgres server, which keeps
 * listening on 127.0.0.1 only; the Restate test starts a service endpoint in a namespace, listening on
 * that address alone, which the Restate server on this machine reaches over the link. Each test names its
 * namespaces and links after its process (`<prefix>-<pid>-<letter>`, `<2 letters><pid><letter>h`, a
 * {@link HostFamily}), so that those of a run killed before it could clean up are found and removed by
 * the next one, and tests running at once never meet. Needs root and iproute2.
 */

import { execFileSync, spawnSync } from "node:child_process";
import { connect, createServer, type Server, type Socket } from "node:net";

/** One namespace and its link. */
export interface Host {
  /** The namespace's name (`ip netns exec <namespace> …`). */
  namespace: string;
  /** The namespace's own address (where an endpoint in it listens). */
  address: string;
  /** This machine's end of the link (where a relay to Postgres listens). */
  gateway: string;
  /** The link's end on this machine (deleting it deletes the pair). */
  link: string;
}

/** How one test's hosts are named, and the addresses they take. */
export interface HostFamily {
  /** Namespaces are `<namespace>-<pid>-<letter>`. */
  namespace: string;
  /** Two letters: links are `<link><pid><letter>h` here and `…n` in the namespace (15 characters at most). */
  link: string;
  /** The x of the 10.x.0.0/16 that the links' /30s are taken from. */
  network: number;
}

/** The fleet test's hosts (fleet.test.ts): `cordon-fleet-<pid>-<letter>`, `cf<pid><letter>h`, 10.213.0.0/16. */
export const FLEET_HOSTS: HostFamily = { namespace: "cordon-fleet", link: "cf", network: 213 };

/** The Restate test's hosts (restate-hosts.test.ts): `cordon-rst-<pid>-<letter>`, `rs<pid><letter>h`, 10.214.0.0/16. */
export const RESTATE_HOSTS: HostFamily = { namespace: "cordon-rst", link: "rs", network: 214 };

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

/** Removes the namespaces and links of `family`'s tests whose process is gone (killed before its clean-up). */
export function removeStaleHosts(family: HostFamily): void {
  const namespaces = new RegExp(`^${family.namespace}-(\\d+)-[a-z]$`);
  const links = new RegExp(`^\\d+:\\s+(${family.link}(\\d+)[a-z]h)[@:]`);
  for (const line of ip(["netns", "list"]).split("\n")) {
    const name = line.split(" ")[0] ?? "";
    const pid = namespaces.exec(name)?.[1];
    if (pid !== undefined && !alive(Number(pid))) ipQuietly(["netns", "del", name]);
  }
  for (const line of ip(["-o", "link", "show"]).split("\n")) {
    const [, link, pid] = links.exec(line) ?? [];
    if (link !== undefined && !alive(Number(pid))) ipQuietly(["link", "del", link]);
  }
}

/** /30 blocks in 10.`network`.0.0/16 that no address of this machine is in, from a place of this process's. */
function freeSubnets(network: number, count: number): string[] {
  const used = new Set(
    [
      ...ip(["-4", "-o", "addr", "show"]).matchAll(new RegExp(`inet 10\\.${network}\\.(\\d+)\\.(\\d+)`, "g")),
    ].map(([, third, fourth]) => `${third}.${Number(fourth) & ~3}`),
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
 * Makes one namespace of `family` per letter, each linked to this machine by a veth pair with a /30 of its
 * own: `10.n.x.y+1` on this machine's end, `10.n.x.y+2` in the namespace. Undoes what it made on failure.
 */
export function makeHosts(family: HostFamily, letters: string[]): Host[] {
  const subnets = freeSubnets(family.network, letters.length);
  const net = `10.${family.network}`;
  const hosts: Host[] = [];
  try {
    letters.forEach((letter, i) => {
      const [third, fourth] = subnets[i]!.split(".").map(Number) as [number, number];
      const host: Host = {
        namespace: `${family.namespace}-${process.pid}-${letter}`,
        address: `${net}.${third}.${fourth + 2}`,
        gateway: `${net}.${third}.${fourth + 1}`,
        link: `${family.link}${process.pid}${letter}h`,
      };
      const inside = `${family.link}${process.pid}${letter}n`;
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
