/**
 * Questions an upstream MCP server asks cordon as its client (elicitation, sampling, roots) reach the
 * person (or model) behind cordon's own MCP client, naming the upstream, and the answers reach the
 * upstream's tool; when the client cannot answer, or cordon cannot tell which client to ask, the upstream
 * gets a clear error, and the run's code sees it.
 */

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema, ListRootsRequestSchema, type Root } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import {
  MAX_UPSTREAM_QUESTIONS_PER_CALL,
  MAX_UPSTREAM_QUESTIONS_PER_RUN,
} from "../../src/mcp/upstream/questions.js";
import { ensureBuilt } from "../cli/helpers.js";
import { ASKING_COMMAND, type Connected, connectHttp, connectStdio, runCode, textOf } from "./helpers.js";

/** The asking test upstream, named "ask". */
const ASKING = `ask=${ASKING_COMMAND}`;

let mcp: Connected | undefined;
const others: Client[] = [];
let scratch: string | undefined;

/** The asking upstream, writing what it gets when it asks for roots outside any call to a new file. */
function askingWithRootsFile(): { upstream: string; lines: () => string[] } {
  scratch = mkdtempSync(join(tmpdir(), "cordon-roots-"));
  const file = join(scratch, "roots.txt");
  return {
    upstream: `${ASKING} ${file}`,
    lines: () => {
      try {
        return readFileSync(file, "utf8")
          .split("\n")
          .filter((line) => line !== "");
      } catch {
        return [];
      }
    },
  };
}

beforeAll(() => ensureBuilt());

afterEach(async () => {
  for (const other of others.splice(0)) await other.close();
  await mcp?.close();
  mcp = undefined;
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  scratch = undefined;
});

describe("upstream servers' questions in cordon mcp", () => {
  it("an upstream's elicitation reaches the client naming the upstream, and the answer reaches the upstream's tool", async () => {
    mcp = await connectStdio(["--upstream", ASKING], (message) => ({
      action: "accept",
      content: { answer: message.includes("favourite colour") ? "green" : "?" },
    }));
    const result = await runCode(
      mcp.client,
      `return await tools.ask__ask({ question: "Your favourite colour?" });`,
    );
    expect(textOf(result)).toContain("accept: green");
    expect(mcp.questions).toEqual(['The MCP server "ask" asks: Your favourite colour?']);
  });

  it("an upstream's question cannot hide or fake who asks: control and bidi characters are shown", async () => {
    mcp = await connectStdio(["--upstream", ASKING], () => ({ action: "decline" }));
    const result = await runCode(
      mcp.client,
      `return await tools.ask__ask({ question: "\\u202Eevil\\u001b[2K" });`,
    );
    expect(textOf(result)).toContain("decline: undefined");
    expect(mcp.questions[0]).toBe('The MCP server "ask" asks: \\u{202E}evil\\u{1B}[2K');
  });

  it("an upstream that keeps asking during one call is refused past the per-call cap, and the person is asked no more", async () => {
    mcp = await connectStdio(["--upstream", ASKING], () => ({ action: "accept", content: { answer: "y" } }));
    const result = await runCode(
      mcp.client,
      `return await tools.ask__ask_many({ count: ${MAX_UPSTREAM_QUESTIONS_PER_CALL + 5} });`,
    );
    expect(textOf(result)).toContain(`answered ${MAX_UPSTREAM_QUESTIONS_PER_CALL}; then:`);
    expect(textOf(result)).toContain(
      `already asked ${MAX_UPSTREAM_QUESTIONS_PER_CALL} questions (elicitation or sampling) during this call`,
    );
    expect(mcp.questions).toHaveLength(MAX_UPSTREAM_QUESTIONS_PER_CALL);
  });

  it("a run whose calls each ask under the per-call cap is stopped at the per-run cap: a person is asked no more than that in one run", async () => {
    mcp = await connectStdio(["--upstream", ASKING], () => ({ action: "accept", content: { answer: "y" } }));
    const perCall = MAX_UPSTREAM_QUESTIONS_PER_CALL - 1;
    const calls = Math.ceil(MAX_UPSTREAM_QUESTIONS_PER_RUN / perCall) + 2;
    const result = await runCode(
      mcp.client,
      `const said = []; for (let i = 0; i < ${calls}; i++) said.push(await tools.ask__ask_many({ count: ${perCall} })); return said;`,
    );
    expect(mcp.questions).toHaveLength(MAX_UPSTREAM_QUESTIONS_PER_RUN);
    expect(textOf(result)).toContain(
      `already passed on ${MAX_UPSTREAM_QUESTIONS_PER_RUN} questions (elicitation or sampling) from upstream servers during this run_code call, the most cordon passes on for one run`,
    );
    // The next run may ask again.
    const next = await runCode(mcp.client, `return await tools.ask__ask({ question: "Again?" });`);
    expect(textOf(next)).toContain("accept: y");
  });

  it("a client without elicitation: the upstream's question is refused with a clear error the code sees", async () => {
    mcp = await connectStdio(["--upstream", ASKING]);
    const result = await runCode(
      mcp.client,
      `try { return await tools.ask__ask({ question: "Sure?" }); } catch (e) { return e.message; }`,
    );
    expect(textOf(result)).toContain(
      "asking failed: MCP error -32600: cordon's MCP client does not support form-mode elicitation (asking its user), so it cannot be asked.",
    );
  });

  it("an upstream's sampling request reaches the client's model, and its message reaches the upstream's tool", async () => {
    const prompts: unknown[] = [];
    mcp = await connectStdio(["--upstream", ASKING], undefined, undefined, {
      sampling: (params) => {
        prompts.push(params.messages);
        return { role: "assistant", model: "test-model", content: { type: "text", text: "forty-two" } };
      },
    });
    const result = await runCode(mcp.client, `return await tools.ask__sample({ prompt: "The answer?" });`);
    expect(textOf(result)).toContain("test-model says: forty-two");
    expect(prompts).toEqual([[{ role: "user", content: { type: "text", text: "The answer?" } }]]);
  });

  it("a client without sampling: the upstream's sampling request fails with a clear error in the run", async () => {
    mcp = await connectStdio(["--upstream", ASKING]);
    const result = await runCode(mcp.client, `return await tools.ask__sample({ prompt: "The answer?" });`);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain(
      "sampling failed: MCP error -32600: cordon's MCP client does not support sampling (asking its model for a message), so it cannot be asked.",
    );
  });

  it("the client's roots reach the upstream, and a change of them is passed on to it", async () => {
    const roots: Root[] = [{ uri: "file:///srv/docs", name: "docs" }];
    mcp = await connectStdio(["--upstream", ASKING], undefined, undefined, { roots });
    const first = await runCode(mcp.client, `return await tools.ask__roots({});`);
    expect(textOf(first)).toContain("file:///srv/docs");
    const changes = async () => {
      const text = textOf(
        await runCode(mcp!.client, `return "changes=" + (await tools.ask__roots_changes({}));`),
      );
      return Number(/changes=(\d+)/.exec(text)?.[1]);
    };
    const before = await changes();
    roots.push({ uri: "file:///srv/more" });
    await mcp.client.sendRootsListChanged();
    await vi.waitFor(async () => expect(await changes()).toBe(before + 1), { timeout: 5_000 });
    const second = await runCode(mcp.client, `return await tools.ask__roots({});`);
    expect(textOf(second)).toContain("file:///srv/docs file:///srv/more");
  });

  it("roots asked for outside any call: the roots of the only connected client that offers roots", async () => {
    const { upstream, lines } = askingWithRootsFile();
    const roots: Root[] = [{ uri: "file:///srv/docs" }];
    mcp = await connectStdio(["--upstream", upstream], undefined, undefined, { roots });
    await runCode(mcp.client, `return await tools.ask__roots_changes({});`);
    roots.push({ uri: "file:///srv/more" });
    // The upstream asks for the roots as soon as it hears they changed, while no code runs.
    await mcp.client.sendRootsListChanged();
    await vi.waitFor(() => expect(lines()).toContain("file:///srv/docs file:///srv/more"), {
      timeout: 5_000,
    });
  });

  it("roots asked for outside any call while two connected clients offer roots: refused rather than guessed", async () => {
    const { upstream, lines } = askingWithRootsFile();
    const http = await connectHttp(["--upstream", upstream], undefined, { roots: [{ uri: "file:///one" }] });
    mcp = http;
    await runCode(http.client, `return await tools.ask__roots_changes({});`);
    const other = new Client({ name: "other-client", version: "1.0.0" }, { capabilities: { roots: {} } });
    other.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: "file:///two" }] }));
    others.push(other);
    // A second client offering roots changes whose roots there are: the upstream is told, and asks.
    await other.connect(new StreamableHTTPClientTransport(new URL(http.url)));
    await vi.waitFor(
      () =>
        expect(lines()).toContain(
          "listing roots failed: MCP error -32600: cordon cannot tell whose roots to give: no call of this server is in flight and 2 connected MCP clients offer roots.",
        ),
      { timeout: 5_000 },
    );
  });

  it("a client without roots: the upstream's request for roots is refused with a clear error", async () => {
    mcp = await connectStdio(["--upstream", ASKING]);
    const result = await runCode(mcp.client, `return await tools.ask__roots({});`);
    expect(textOf(result)).toContain(
      "listing roots failed: MCP error -32600: cordon's MCP client does not support roots, so it cannot be asked.",
    );
  });

  it("calls of the upstream from two clients in flight: its question is refused rather than sent to a guess", async () => {
    const http = await connectHttp(["--upstream", ASKING], () => ({
      action: "accept",
      content: { answer: "A" },
    }));
    mcp = http;
    const other = new Client(
      { name: "other-client", version: "1.0.0" },
      { capabilities: { elicitation: { form: {} } } },
    );
    others.push(other);
    await other.connect(new StreamableHTTPClientTransport(new URL(http.url)));
    let slowStarted!: () => void;
    const started = new Promise<void>((resolve) => {
      slowStarted = resolve;
    });
    const slow = other.callTool(
      { name: "run_code", arguments: { code: `return await tools.ask__slow({ ms: 3000 });` } },
      undefined,
      { onprogress: ({ message }) => message?.startsWith("ask__slow started") && slowStarted() },
    );
    await started;
    const asked = await runCode(http.client, `return await tools.ask__ask({ question: "Which?" });`);
    expect(textOf(asked)).toContain(
      "cordon cannot tell which of its MCP clients this elicitation request is for: calls of this server from 2 clients are in flight",
    );
    expect(http.questions).toEqual([]);
    expect(textOf(await slow)).toContain("waited 3000 ms");
  });
});

describe("an upstream's question goes to the client whose call it came from, or to nobody", () => {
  /** Client A (cordon mcp over HTTP, answering "A") and a second client B of the same server (answering "B"). */
  async function twoClients(): Promise<{ a: Connected & { url: string }; b: Client; bQuestions: string[] }> {
    const a = await connectHttp(["--upstream", ASKING], () => ({
      action: "accept",
      content: { answer: "A" },
    }));
    mcp = a;
    const bQuestions: string[] = [];
    const b = new Client(
      { name: "client-b", version: "1.0.0" },
      { capabilities: { elicitation: { form: {} } } },
    );
    b.setRequestHandler(ElicitRequestSchema, async (request) => {
      bQuestions.push(request.params.message);
      return { action: "accept", content: { answer: "B" } };
    });
    others.push(b);
    await b.connect(new StreamableHTTPClientTransport(new URL(a.url)));
    return { a, b, bQuestions };
  }

  /**
   * Starts a long call of the upstream for `client`; resolves once the upstream has started it, with its
   * end (a cancel, once the test has seen what it needs).
   */
  async function longCall(client: Client): Promise<{ end: () => Promise<void> }> {
    const cancel = new AbortController();
    let started!: () => void;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const done = client
      .callTool(
        { name: "run_code", arguments: { code: "return await tools.ask__slow({ ms: 60000 });" } },
        undefined,
        {
          signal: cancel.signal,
          onprogress: ({ message }) => message?.startsWith("ask__slow started") && started(),
        },
      )
      .catch(() => {});
    await running;
    return {
      end: async () => {
        cancel.abort();
        await done;
      },
    };
  }

  /** What became of the upstream's late question, once it is known. */
  async function lateOutcome(client: Client): Promise<string> {
    return vi.waitFor(
      async () => {
        const text = textOf(await runCode(client, "return await tools.ask__late_outcome({});"));
        expect(text).not.toContain("none yet");
        return text;
      },
      { timeout: 5_000 },
    );
  }

  it("a question from an upstream after client B's call ended never reaches client A, whose call was running", async () => {
    const { a, b, bQuestions } = await twoClients();
    const aCall = await longCall(a.client);
    const asked = await runCode(
      b,
      `return await tools.ask__ask_later({ question: "B's invoice total?", ms: 300 });`,
    );
    expect(textOf(asked)).toContain("will ask later");
    // B's call has ended; the upstream asks while A's call runs.
    const outcome = await lateOutcome(b);
    await aCall.end();
    expect(outcome).toContain(
      "refused: MCP error -32600: cordon cannot tell which of its MCP clients this elicitation request is for: a call of this server for another client ran alongside this client's call",
    );
    expect(a.questions).toEqual([]);
    expect(bQuestions).toEqual([]);
  });

  it("a question for client B's cancelled call, asked while client A's later call runs, never reaches client A", async () => {
    const { a, b, bQuestions } = await twoClients();
    const cancel = new AbortController();
    let started!: () => void;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const cancelled = b
      .callTool(
        {
          name: "run_code",
          arguments: { code: `return await tools.ask__ask_after({ question: "B's invoice total?" });` },
        },
        undefined,
        {
          signal: cancel.signal,
          onprogress: ({ message }) => message?.startsWith("ask__ask_after started") && started(),
        },
      )
      .catch((error: unknown) => error);
    await running;
    cancel.abort();
    await cancelled;
    // A's call starts after B's has ended, and the upstream asks B's question as it starts.
    const aCall = await longCall(a.client);
    const outcome = await lateOutcome(a.client);
    await aCall.end();
    expect(outcome).toContain(
      "refused: MCP error -32600: cordon cannot tell which of its MCP clients this elicitation request is for: a call of this server for another client ended without its answer",
    );
    expect(a.questions).toEqual([]);
    expect(bQuestions).toEqual([]);
  });
});
