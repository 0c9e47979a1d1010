/**
 * `cordon mcp` on standard input: a message over the size it reads is answered with an error naming the
 * limit, and the server goes on serving (the SDK's transport alone closed, and the server exited 0
 * without a word). The line filter's edges are tested on their own.
 */

import { type ChildProcess, spawn } from "node:child_process";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { LineLimit, MAX_STDIO_MESSAGE_BYTES, type SkippedLine } from "../../src/mcp/stdio-lines.js";
import { CORDON_BIN, ensureBuilt, root, SHOP_TOOLS } from "../cli/helpers.js";

describe("the line filter in front of the stdio transport", () => {
  function run(max: number, chunks: string[]): { lines: string[]; skipped: SkippedLine[] } {
    const lines: string[] = [];
    const skipped: SkippedLine[] = [];
    const filter = new LineLimit(max, (line) => skipped.push(line));
    filter.on("data", (chunk: Buffer) => lines.push(chunk.toString()));
    for (const chunk of chunks) filter.write(Buffer.from(chunk));
    return { lines, skipped };
  }

  it("passes whole lines, however they were split into chunks, and holds a line until its end arrives", () => {
    const { lines } = run(100, ['{"a":', '1}\n{"b"', ":2}\n", '{"c":3']);
    expect(lines).toEqual(['{"a":1}\n', '{"b":2}\n']);
  });

  it("a line of exactly the limit passes; one byte more is skipped, reported with its size and start, and the next line passes", () => {
    const exact = run(10, ["0123456789\n"]);
    expect(exact.lines).toEqual(["0123456789\n"]);
    const over = run(10, ['{"id":5,"x', '":"xxxxxxxxxxxx"}\n', "next\n"]);
    expect(over.lines).toEqual(["next\n"]);
    expect(over.skipped).toEqual([
      { head: '{"id":5,"x":"xxxxxxxxxxxx"}', tail: '{"id":5,"x":"xxxxxxxxxxxx"}', bytes: 27 },
    ]);
  });
});

describe("cordon mcp over stdio: a message over the limit", () => {
  let child: ChildProcess | undefined;
  beforeAll(() => ensureBuilt(), 120_000);
  afterEach(() => {
    child?.kill();
    child = undefined;
  });

  it("is answered with an error that names the limit, and the next request is served", async () => {
    child = spawn(process.execPath, [CORDON_BIN, "mcp", "--tools", SHOP_TOOLS], {
      cwd: root,
      stdio: ["pipe", "pipe", "pipe"],
    });
    const responses = new Map<unknown, Record<string, unknown>>();
    let buffered = "";
    let exited: number | null | undefined;
    child.on("exit", (code) => {
      exited = code;
    });
    child.stdout!.on("data", (chunk: Buffer) => {
      buffered += chunk.toString();
      let newline = buffered.indexOf("\n");
      while (newline !== -1) {
        const message = JSON.parse(buffered.slice(0, newline)) as Record<string, unknown>;
        responses.set(message.id, message);
        buffered = buffered.slice(newline + 1);
        newline = buffered.indexOf("\n");
      }
    });
    const send = (message: unknown) => child!.stdin!.write(`${JSON.stringify(message)}\n`);
    const answer = async (id: number) => {
      for (let waited = 0; !responses.has(id); waited += 20) {
        if (waited > 60_000 || exited !== undefined) throw new Error(`no answer to ${id} (exit ${exited})`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return responses.get(id)!;
    };
    send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    });
    await answer(1);
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    const code = `// ${"x".repeat(MAX_STDIO_MESSAGE_BYTES + 1_000)}`;
    send({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "run_code", arguments: { code } } });
    send({ jsonrpc: "2.0", id: 8, method: "tools/list" });
    const refused = await answer(7);
    expect(refused.error).toMatchObject({ code: -32600 });
    expect(String((refused.error as { message: string }).message)).toContain(
      `over the ${MAX_STDIO_MESSAGE_BYTES.toLocaleString("en-US")} bytes cordon mcp reads in one message`,
    );
    const listed = await answer(8);
    expect((listed.result as { tools: { name: string }[] }).tools.map((tool) => tool.name)).toContain(
      "run_code",
    );
    expect(exited).toBeUndefined();
  }, 90_000);
});
