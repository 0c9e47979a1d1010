/**
 * What the Restate tests share: the server from scripts/restate-server.sh (the npm registry's Restate
 * server, on 127.0.0.1), service endpoints each a process of their own (so a test can SIGKILL one), the
 * deployment registered once and moved to another endpoint with a PATCH, invocations sent and attached
 * through the ingress, and the clean-up of a service name of the test run's own (the server may be shared
 * with other checkouts' runs).
 */

import { type ChildProcess, execFile, spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";

const ROOT = join(import.meta.dirname, "..", "..");

/** The server's two addresses. */
export interface RestateServer {
  ingress: string;
  admin: string;
}

/** Starts the server (or finds it running) with the project's script. */
export async function restateServer(): Promise<RestateServer> {
  const { stdout } = await promisify(execFile)(join(ROOT, "scripts", "restate-server.sh"), [], {
    timeout: 180_000,
  });
  const addresses = /ingress (http:\/\/\S+), admin (http:\/\/[^\s)]+)/.exec(stdout);
  if (addresses === null) throw new Error(`scripts/restate-server.sh printed no addresses:\n${stdout}`);
  const [, ingress, admin] = addresses as unknown as [string, string, string];
  return { ingress, admin };
}

/** An endpoint process, once it listens. */
export interface Endpoint {
  url: string;
  child: ChildProcess;
}

/** One service of the test run's own on the server: its endpoints, deployment and invocations. */
export class RestateService {
  readonly server: RestateServer;
  readonly name: string;
  readonly #endpoints = new Set<ChildProcess>();
  #deployment: string | undefined;

  constructor(server: RestateServer, name: string) {
    this.server = server;
    this.name = name;
  }

  /**
   * Starts `node [node args] --import tsx <file> <service> <args…>` (behind `prefix`, a command such
   * as `ip netns exec <ns>`); resolves once it prints `listening <port>`, with its URL on `host`.
   */
  startEndpoint(
    file: string,
    args: string[],
    options: { host?: string; prefix?: string[]; nodeArgs?: string[] } = {},
  ): Promise<Endpoint> {
    const command = [
      ...(options.prefix ?? []),
      process.execPath,
      ...(options.nodeArgs ?? []),
      "--import",
      "tsx",
      file,
      this.name,
      ...args,
    ];
    const child = spawn(command[0]!, command.slice(1), { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    this.#endpoints.add(child);
    child.on("exit", () => this.#endpoints.delete(child));
    return new Promise((resolve, reject) => {
      let output = "";
      const seen = (chunk: Buffer) => {
        output += chunk.toString();
        const port = /listening (\d+)/.exec(output)?.[1];
        if (port !== undefined) resolve({ url: `http://${options.host ?? "127.0.0.1"}:${port}`, child });
      };
      child.stdout.on("data", seen);
      child.stderr.on("data", (chunk: Buffer) => {
        output += chunk.toString();
      });
      child.on("exit", (code) =>
        reject(new Error(`the endpoint exited (${code}) before it listened:\n${output}`)),
      );
    });
  }

  /** Serves the service from `url`: registers the deployment the first time, moves it there later. */
  async serveFrom(url: string): Promise<void> {
    if (this.#deployment === undefined) {
      this.#deployment = (await this.adminCall("POST", "/deployments", { uri: url, force: true }))
        .id as string;
    } else {
      await this.adminCall("PATCH", `/deployments/${this.#deployment}`, { uri: url });
    }
  }

  /** Starts an invocation of `handler` through the ingress; resolves with its id. */
  async send(handler: string, input: object): Promise<string> {
    const response = await fetch(`${this.server.ingress}/${this.name}/${handler}/send`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(input),
    });
    const body = (await response.json()) as { invocationId?: string };
    if (body.invocationId === undefined) throw new Error(`no invocation id: ${JSON.stringify(body)}`);
    return body.invocationId;
  }

  /** The invocation's result, once it has one. */
  async attach<T>(invocationId: string): Promise<T> {
    const response = await fetch(`${this.server.ingress}/restate/invocation/${invocationId}/attach`);
    const text = await response.text();
    if (!response.ok) throw new Error(`invocation ${invocationId} failed: ${response.status} ${text}`);
    return JSON.parse(text) as T;
  }

  /** Resolves (or rejects, given `reject`) an awakeable through the ingress; resolves with the HTTP status. */
  async settleAwakeable(id: string, value: unknown, reject = false): Promise<number> {
    const response = await fetch(
      `${this.server.ingress}/restate/awakeables/${id}/${reject ? "reject" : "resolve"}`,
      {
        method: "POST",
        headers: { "content-type": reject ? "text/plain" : "application/json" },
        body: reject ? String(value) : JSON.stringify(value),
      },
    );
    await response.text();
    return response.status;
  }

  /** The last failure Restate recorded for an invocation ("" for none yet). */
  async lastFailure(invocationId: string): Promise<string> {
    const { rows } = (await this.adminCall("POST", "/query", {
      query: `select last_failure from sys_invocation where id = '${invocationId}'`,
    })) as { rows: { last_failure: string | null }[] };
    return rows[0]?.last_failure ?? "";
  }

  async adminCall(method: string, path: string, body: object): Promise<Record<string, unknown>> {
    const response = await fetch(`${this.server.admin}${path}`, {
      method,
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return JSON.parse(text) as Record<string, unknown>;
  }

  /** Kills what a failed test left: invocations still retrying, endpoints, the deployment. */
  async cleanUp(): Promise<void> {
    const { rows } = (await this.adminCall("POST", "/query", {
      query: `select id from sys_invocation where target_service_name = '${this.name}' and status != 'completed'`,
    })) as { rows: { id: string }[] };
    for (const { id } of rows)
      await fetch(`${this.server.admin}/invocations/${id}/kill`, { method: "PATCH" });
    for (const child of this.#endpoints) child.kill("SIGKILL");
    if (this.#deployment !== undefined) {
      await fetch(`${this.server.admin}/deployments/${this.#deployment}?force=true`, { method: "DELETE" });
    }
  }
}

/** The non-empty lines of `file` (none when it is not there yet). */
export async function lines(file: string): Promise<string[]> {
  const text = await readFile(file, "utf8").catch(() => "");
  return text.split("\n").filter((line) => line !== "");
}
