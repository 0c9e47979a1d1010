/**
 * `cordon mcp --http --typecheck block`: every MCP session is a client of the type checker. The attack:
 * one party opens two sessions and queues hostile type-level code in each (every check runs to its
 * budget and is cut off); another session's plain run_code call is then checked on the next thread that
 * comes free, not after all of them.
 */

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_TYPECHECK_TIME_MS } from "../../src/codemode/typecheck/limits.js";
import { ensureBuilt, SHOP_TOOLS } from "../cli/helpers.js";
import { type Connected, connectHttp, runCode, textOf } from "./helpers.js";

/** Twenty levels of a conditional type that doubles at each: TypeScript alone takes seconds on it. */
const HOSTILE = `type T<N extends 0[], A> = N extends [0, ...infer R extends 0[]] ? T<R, [A, 1]> | T<R, [A, 2]> : A;
type X = T<[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], 0>;
const x: X = 1 as any;
return 1;`;

let server: (Connected & { url: string }) | undefined;
const sessions: Client[] = [];
beforeAll(() => ensureBuilt());
afterAll(async () => {
  await Promise.all(sessions.map((client) => client.close().catch(() => {})));
  await server?.close();
});

async function session(url: string): Promise<Client> {
  const client = new Client({ name: "typecheck-turns", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  sessions.push(client);
  return client;
}

describe("cordon mcp: type checks of different sessions", () => {
  it("hostile checks queued from two sessions hold up another session's run_code by one turn of the pool at most", async () => {
    server = await connectHttp(["--tools", SHOP_TOOLS, "--typecheck", "block", "--typecheck-workers", "2"]);
    const attackers = [server.client, await session(server.url)];
    const victim = await session(server.url);
    const attack = attackers.flatMap((client) => [1, 2, 3].map(() => runCode(client, HOSTILE)));
    let answered = 0;
    // The calls still queued when the test ends fail as their sessions close.
    for (const call of attack)
      void call.then(
        () => answered++,
        () => {},
      );
    // Once one is answered, all six were queued long before.
    const first = await Promise.race(attack);
    expect(first.isError).toBe(true);
    expect(textOf(first)).toContain(`took longer than its budget of ${DEFAULT_TYPECHECK_TIME_MS} ms`);
    const before = answered;
    const plain: CallToolResult = await runCode(victim, "const n: number = 2;\nreturn n * 21;");
    expect(plain.isError).toBeFalsy();
    expect(textOf(plain)).toContain("result: 42");
    // At most one check per thread was answered while it waited; the attack's queue is far from drained
    // (one queue for every session would have answered all five first).
    expect(answered - before).toBeLessThanOrEqual(2);
    expect(attack.length - answered).toBeGreaterThanOrEqual(3);
  }, 60_000);
});
