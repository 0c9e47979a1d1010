/**
 * Resumable streams for `cordon mcp --http`: each session keeps the last messages it sent on its SSE
 * streams (the SDK transport's `EventStore`), so a client whose stream dropped reconnects with
 * `Last-Event-ID` and receives what it missed. The store is bounded by {@link MAX_SESSION_EVENTS} and
 * {@link MAX_SESSION_EVENT_BYTES}, drops the oldest events first, and is emptied when its session closes.
 */

import type { EventId, EventStore, StreamId } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** Events one session keeps for replay; older ones are dropped first. */
export const MAX_SESSION_EVENTS = 1_000;

/** Bytes (of JSON) one session keeps for replay; older events are dropped first. */
const MAX_SESSION_EVENT_BYTES = 2 * 1024 * 1024;

/** The `retry` an SSE stream announces: how long a client waits before reconnecting, in ms. */
export const SSE_RETRY_MS = 1_000;

/** Bounds of a {@link SessionEventStore}; defaults are the exported constants. */
export interface EventStoreLimits {
  maxEvents?: number;
  maxBytes?: number;
}

interface StoredEvent {
  streamId: StreamId;
  /** The message as sent; `undefined` for a priming event (no message, only an id to resume from). */
  json: string | undefined;
  bytes: number;
}

/** The events of one session, by id (a per-session counter, so ids are in the order they were sent). */
export class SessionEventStore implements EventStore {
  readonly #maxEvents: number;
  readonly #maxBytes: number;
  readonly #events = new Map<EventId, StoredEvent>();
  #bytes = 0;
  #nextSeq = 1;
  /** The newest dropped event: resuming from it misses nothing, as every later event is still kept. */
  #lastDropped: { id: EventId; streamId: StreamId } | undefined;
  #closed = false;

  constructor(limits: EventStoreLimits = {}) {
    this.#maxEvents = limits.maxEvents ?? MAX_SESSION_EVENTS;
    this.#maxBytes = limits.maxBytes ?? MAX_SESSION_EVENT_BYTES;
  }

  /** Events kept now. */
  get size(): number {
    return this.#events.size;
  }

  /** Bytes kept now. */
  get bytes(): number {
    return this.#bytes;
  }

  async storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    const id = String(this.#nextSeq++);
    if (this.#closed) return id;
    // The SDK stores a priming event as `{}`: it is an id to resume from, never replayed as a message.
    const json = "jsonrpc" in message ? JSON.stringify(message) : undefined;
    const bytes = json === undefined ? 0 : Buffer.byteLength(json);
    this.#events.set(id, { streamId, json, bytes });
    this.#bytes += bytes;
    this.#dropOldest();
    return id;
  }

  async getStreamIdForEventId(eventId: EventId): Promise<StreamId | undefined> {
    return this.#streamOf(eventId);
  }

  async replayEventsAfter(
    lastEventId: EventId,
    { send }: { send: (eventId: EventId, message: JSONRPCMessage) => Promise<void> },
  ): Promise<StreamId> {
    const streamId = this.#streamOf(lastEventId);
    if (streamId === undefined) throw new Error(this.resumeProblem(lastEventId));
    const after = Number(lastEventId);
    // A copy: sending awaits, and events stored meanwhile must not change what this replay walks.
    for (const [id, event] of [...this.#events]) {
      if (Number(id) > after && event.streamId === streamId && event.json !== undefined) {
        await send(id, JSON.parse(event.json) as JSONRPCMessage);
      }
    }
    return streamId;
  }

  /**
   * Why a client cannot resume after `lastEventId` (an id this session never sent, or one whose later
   * events were dropped), or `undefined` when it can.
   */
  resumeProblem(lastEventId: string): string | undefined {
    if (this.#streamOf(lastEventId) !== undefined) return undefined;
    const shown = JSON.stringify(lastEventId.slice(0, 64));
    if (/^[1-9]\d*$/.test(lastEventId) && Number(lastEventId) < this.#nextSeq) {
      return `Last-Event-ID ${shown} is too old to resume from: this session keeps its last ${this.#maxEvents} events and ${this.#maxBytes} bytes of them, and events sent after that one were dropped. What the stream missed cannot be replayed: send the request again.`;
    }
    return `Last-Event-ID ${shown} names no event this session sent: resume with the id of the last event received on this session's stream, or open the stream without Last-Event-ID.`;
  }

  /** Drops every event: the session is closed. */
  close(): void {
    this.#closed = true;
    this.#events.clear();
    this.#bytes = 0;
    this.#lastDropped = undefined;
  }

  #streamOf(eventId: string): StreamId | undefined {
    const kept = this.#events.get(eventId);
    if (kept) return kept.streamId;
    return this.#lastDropped?.id === eventId ? this.#lastDropped.streamId : undefined;
  }

  #dropOldest(): void {
    for (const [id, event] of this.#events) {
      if (this.#events.size <= this.#maxEvents && this.#bytes <= this.#maxBytes) return;
      this.#events.delete(id);
      this.#bytes -= event.bytes;
      this.#lastDropped = { id, streamId: event.streamId };
    }
  }
}
