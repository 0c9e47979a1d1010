/**
 * Resumable streams of `cordon mcp --http`: a real process on 127.0.0.1, driven with raw HTTP (to see the
 * SSE frames) and with the official MCP client (which reconnects by itself); and the per-session event
 * store's bounds.
 */

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  type CallToolResult,
  ElicitRequestSchema,
  type JSONRPCMessage,
} from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_SESSION_EVENTS, SessionEventStore, SSE_RETRY_MS } from "../../src/mcp/event-store.js";
import { ensureBuilt } from "../cli/helpers.js";
import { type Connected, connectHttp, textOf, UPSTREAM_COMMAND } from "./helpers.js";

const GATED_TOOLS = "test/mcp/fixtures/gated-tools.ts";
const PROTOCOL = "2025-11-25";

let mcp: Connected & { url: string };

beforeAll(async () => {
  ensureBuilt();
  mcp = await connectHttp(["--tools", GATED_TOOLS, "--upstream", `calc=${UPSTREAM_COMMAND}`]);
}, 60_000);

afterAll(async () => {
  await mcp?.close();
});

/** One SSE event as a client sees it. */
interface SseEvent {
  id?: string;
  retry?: number;
  data: string;
}

/** Reads SSE events from a response until `enough` says so (or the stream ends), then stops reading. */
async function readEvents(response: Response, enough: (events: SseEvent[]) => boolean): Promise<SseEvent[]> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const events: SseEvent[] = [];
  let buffered = "";
  try {
    while (!enough(events)) {
      const { value, done } = await reader.read();
      if (done) break;
      buffered += value;
      let end = buffered.indexOf("\n\n");
      while (end !== -1) {
        events.push(parseEvent(buffered.slice(0, end)));
        buffered = buffered.slice(end + 2);
        end = buffered.indexOf("\n\n");
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  return events;
}

function parseEvent(block: string): SseEvent {
  const event: SseEvent = { data: "" };
  for (const line of block.split("\n")) {
    const colon = line.indexOf(":");
    const field = line.slice(0, colon);
    const value = line.slice(colon + 1).replace(/^ /, "");
    if (field === "id") event.id = value;
    else if (field === "retry") event.retry = Number(value);
    else if (field === "data") event.data += value;
  }
  return event;
}

/** The JSON-RPC message an event carries (none for a priming event). */
function messageOf(event: SseEvent): { id?: unknown; method?: unknown; result?: unknown } | undefined {
  return event.data.trim() === "" ? undefined : JSON.parse(event.data);
}

/** A session opened with raw HTTP: initialized, declaring form elicitation. */
async function rawSession(): Promise<{ headers: Record<string, string> }> {
  const response = await post(
    {},
    {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: PROTOCOL,
        capabilities: { elicitation: { form: {} } },
        clientInfo: { name: "resumable-test", version: "1.0.0" },
      },
    },
  );
  expect(response.status).toBe(200);
  await response.body?.cancel();
  const headers = {
    "mcp-session-id": response.headers.get("mcp-session-id")!,
    "mcp-protocol-version": PROTOCOL,
  };
  const initialized = await post(headers, { jsonrpc: "2.0", method: "notifications/initialized" });
  expect(initialized.status).toBe(202);
  return { headers };
}

function post(headers: Record<string, string>, body: unknown, signal?: AbortSignal): Promise<Response> {
  return fetch(mcp.url, {
    method: "POST",
    headers: {
      ...headers,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
}

function resume(headers: Record<string, string>, lastEventId?: string): Promise<Response> {
  return fetch(mcp.url, {
    headers: {
      ...headers,
      accept: "text/event-stream",
      ...(lastEventId === undefined ? {} : { "last-event-id": lastEventId }),
    },
  });
}

/** Has the test upstream add a tool (from run_code), which makes cordon announce that its tools changed. */
async function addUpstreamTool(headers: Record<string, string>, name: string): Promise<void> {
  const response = await post(
    headers,
    runCall(2, `return await tools.calc__add_tool({ name: "${name}", reply: "hi" });`),
  );
  const events = await readEvents(response, (seen) => seen.some((e) => messageOf(e)?.id === 2));
  expect(JSON.stringify(events.map(messageOf))).toContain(`added ${name}`);
}

const runCall = (id: number, code: string) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: "run_code", arguments: { code } },
});

describe("cordon mcp --http: resumable streams (real process, raw HTTP and the official client)", () => {
  it("a request's SSE stream starts with a priming event: an id to resume from, the retry interval and no data", async () => {
    const { headers } = await rawSession();
    const response = await post(headers, { jsonrpc: "2.0", id: 2, method: "tools/list" });
    const events = await readEvents(response, (seen) => seen.some((e) => messageOf(e)?.id === 2));
    expect(events[0]).toEqual({ id: expect.any(String), retry: SSE_RETRY_MS, data: "" });
    expect(events.at(-1)!.id).toEqual(expect.any(String));
  });

  it("a run whose stream dropped while it waited for approval: a reconnection with Last-Event-ID receives the result it missed", async () => {
    const { headers } = await rawSession();
    const dropped = new AbortController();
    const response = await post(
      headers,
      runCall(2, `return await tools.stamp({ note: "resumed" });`),
      dropped.signal,
    );
    const seen = await readEvents(response, (events) =>
      events.some((e) => messageOf(e)?.method === "elicitation/create"),
    );
    dropped.abort();
    const question = messageOf(seen.at(-1)!)!;
    const answered = await post(headers, {
      jsonrpc: "2.0",
      id: question.id,
      result: { action: "accept", content: { allow: true } },
    });
    expect(answered.status).toBe(202);

    const resumed = await resume(headers, seen.at(-1)!.id);
    expect(resumed.status).toBe(200);
    const missed = await readEvents(resumed, (events) => events.some((e) => messageOf(e)?.id === 2));
    const result = missed.map(messageOf).find((message) => message?.id === 2) as
      | { result: CallToolResult }
      | undefined;
    expect(textOf(result?.result)).toContain("approved: resumed");
    expect(result?.result.isError).toBe(false);
  });

  it("notifications sent while the session's event stream was down arrive when it reconnects with Last-Event-ID", async () => {
    const { headers } = await rawSession();
    const isListChanged = (e: SseEvent) => messageOf(e)?.method === "notifications/tools/list_changed";
    // The SDK primes request streams only: this stream can be resumed from its first event on.
    const stream = await resume(headers);
    expect(stream.status).toBe(200);
    const first = readEvents(stream, (seen) => seen.some(isListChanged));
    await addUpstreamTool(headers, "first_tool");
    const heard = (await first).find(isListChanged)!;
    expect(heard.id).toEqual(expect.any(String));

    // The stream is closed now; the upstream adds another tool and cordon tells its clients again.
    await addUpstreamTool(headers, "second_tool");
    const resumed = await resume(headers, heard.id);
    expect(resumed.status).toBe(200);
    const missed = await readEvents(resumed, (seen) => seen.some(isListChanged));
    expect(missed.filter(isListChanged)).toHaveLength(1);
    expect(Number(missed.find(isListChanged)!.id)).toBeGreaterThan(Number(heard.id));
  });

  it("a Last-Event-ID this session never sent is refused with 400 and a message saying so", async () => {
    const { headers } = await rawSession();
    for (const unknown of ["999999", "not-an-id"]) {
      const response = await resume(headers, unknown);
      expect(response.status).toBe(400);
      const body = (await response.json()) as { error: { message: string } };
      expect(body.error.message).toBe(
        `Last-Event-ID "${unknown}" names no event this session sent: resume with the id of the last event received on this session's stream, or open the stream without Last-Event-ID.`,
      );
    }
  });

  it("the official client whose stream drops mid-run reconnects with Last-Event-ID, answers the approval it missed and gets its result", async () => {
    const resumedWith: string[] = [];
    let cut = false;
    // Ends the run's POST stream, as a dropped connection would, just before the approval question arrives.
    const dropping: FetchLike = async (input, init) => {
      const lastEventId = new Headers(init?.headers).get("last-event-id");
      if (lastEventId) resumedWith.push(lastEventId);
      const response = await fetch(input, init);
      const isRun = typeof init?.body === "string" && init.body.includes('"tools/call"');
      if (cut || !isRun || !response.body) return response;
      cut = true;
      return new Response(cutBefore(response.body, "elicitation/create"), {
        status: response.status,
        headers: response.headers,
      });
    };
    const questions: string[] = [];
    const client = new Client(
      { name: "resuming-client", version: "1.0.0" },
      { capabilities: { elicitation: { form: {} } } },
    );
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      questions.push(request.params.message);
      return { action: "accept", content: { allow: true } };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(mcp.url), { fetch: dropping }));
    try {
      const result = await client.callTool({
        name: "run_code",
        arguments: { code: `return await tools.stamp({ note: "after the drop" });` },
      });
      expect(cut).toBe(true);
      expect(resumedWith).toHaveLength(1);
      expect(questions).toHaveLength(1);
      expect(textOf(result)).toContain("approved: after the drop");
    } finally {
      await client.close();
    }
  });
});

/** The SSE body up to (not including) the first event containing `marker`; then the connection is cut. */
function cutBefore(body: ReadableStream<Uint8Array>, marker: string): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let buffered = "";
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { value, done } = await reader.read();
      if (done) return controller.close();
      buffered += decoder.decode(value, { stream: true });
      let end = buffered.indexOf("\n\n");
      while (end !== -1) {
        const event = buffered.slice(0, end + 2);
        buffered = buffered.slice(end + 2);
        if (event.includes(marker)) {
          await reader.cancel();
          controller.error(new TypeError("terminated: the connection dropped"));
          return;
        }
        controller.enqueue(encoder.encode(event));
        end = buffered.indexOf("\n\n");
      }
    },
    cancel: () => reader.cancel(),
  });
}

describe("SessionEventStore: bounded, oldest first, freed with its session", () => {
  const message = (n: number, text = ""): JSONRPCMessage => ({
    jsonrpc: "2.0",
    method: "notifications/message",
    params: { level: "info", data: `${n}${text}` },
  });
  const replay = async (store: SessionEventStore, after: string) => {
    const sent: [string, JSONRPCMessage][] = [];
    const streamId = await store.replayEventsAfter(after, {
      send: async (id, m) => {
        sent.push([id, m]);
      },
    });
    return { streamId, sent };
  };

  it("replays, after the given id, the messages of that id's stream only, without priming events", async () => {
    const store = new SessionEventStore();
    const priming = await store.storeEvent("a", {} as JSONRPCMessage);
    const first = await store.storeEvent("a", message(1));
    await store.storeEvent("b", message(2));
    const third = await store.storeEvent("a", message(3));
    expect(await store.getStreamIdForEventId(priming)).toBe("a");
    const { streamId, sent } = await replay(store, priming);
    expect(streamId).toBe("a");
    expect(sent).toEqual([
      [first, message(1)],
      [third, message(3)],
    ]);
    expect((await replay(store, third)).sent).toEqual([]);
  });

  it("keeps at most maxEvents events, dropping the oldest first; resuming from a dropped one is refused as too old", async () => {
    const store = new SessionEventStore({ maxEvents: 3 });
    const ids = [];
    for (let n = 1; n <= 5; n++) ids.push(await store.storeEvent("a", message(n)));
    expect(store.size).toBe(3);
    expect(store.resumeProblem(ids[0]!)).toMatch(
      /^Last-Event-ID "1" is too old to resume from: this session keeps its last 3 events and \d+ bytes of them/,
    );
    await expect(replay(store, ids[0]!)).rejects.toThrow(/too old to resume from/);
    expect(await store.getStreamIdForEventId(ids[0]!)).toBeUndefined();
    // The newest dropped event is still a place to resume from: nothing after it was dropped.
    expect((await replay(store, ids[1]!)).sent.map(([id]) => id)).toEqual(ids.slice(2));
  });

  it("keeps at most maxBytes bytes of JSON, dropping the oldest first", async () => {
    const size = Buffer.byteLength(JSON.stringify(message(1, "x".repeat(100))));
    const store = new SessionEventStore({ maxBytes: size * 2 + 10 });
    const ids = [];
    for (let n = 1; n <= 4; n++) ids.push(await store.storeEvent("a", message(n, "x".repeat(100))));
    expect(store.size).toBe(2);
    expect(store.bytes).toBeLessThanOrEqual(size * 2 + 10);
    expect(store.resumeProblem(ids[0]!)).toMatch(/too old to resume from/);
    expect((await replay(store, ids[1]!)).sent.map(([id]) => id)).toEqual(ids.slice(2));
  });

  it("a message larger than the byte bound is not kept, so resuming from before it is refused", async () => {
    const store = new SessionEventStore({ maxBytes: 200 });
    const before = await store.storeEvent("a", message(1));
    const large = await store.storeEvent("a", message(2, "x".repeat(500)));
    expect(store.size).toBe(0);
    expect(store.bytes).toBe(0);
    expect(store.resumeProblem(before)).toMatch(/too old to resume from/);
    // The client received the large message live: resuming after it misses nothing.
    expect(store.resumeProblem(large)).toBeUndefined();
  });

  it(`keeps ${MAX_SESSION_EVENTS} events by default (MAX_SESSION_EVENTS)`, async () => {
    const store = new SessionEventStore();
    for (let n = 0; n <= MAX_SESSION_EVENTS; n++) await store.storeEvent("a", message(n));
    expect(store.size).toBe(MAX_SESSION_EVENTS);
  });

  it("an id it never gave out is refused with a message saying so", async () => {
    const store = new SessionEventStore();
    await store.storeEvent("a", message(1));
    for (const unknown of ["2", "0", "01", "abc", ""]) {
      expect(store.resumeProblem(unknown)).toMatch(/names no event this session sent/);
    }
  });

  it("closing frees every event, and later events are not kept", async () => {
    const store = new SessionEventStore();
    const id = await store.storeEvent("a", message(1, "x".repeat(1000)));
    store.close();
    expect(store.size).toBe(0);
    expect(store.bytes).toBe(0);
    await store.storeEvent("a", message(2));
    expect(store.size).toBe(0);
    expect(await store.getStreamIdForEventId(id)).toBeUndefined();
  });
});
