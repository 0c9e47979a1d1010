// The dispatcher's event queue: buffered for the one consumer that reads it, counted but not kept when
// nobody can ever read it (a code-mode run opened without a handle).
import { describe, expect, it } from "vitest";
import { EventStream } from "../../src/dispatch/event-stream.js";

async function drain(stream: EventStream<number>): Promise<number[]> {
  const seen: number[] = [];
  for await (const event of stream) seen.push(event);
  return seen;
}

describe("EventStream", () => {
  it("keeps the events pushed before the consumer reads them", async () => {
    const stream = new EventStream<number>();
    expect([stream.push(1), stream.push(2), stream.push(3)]).toEqual([1, 2, 3]);
    stream.end();
    expect(await drain(stream)).toEqual([1, 2, 3]);
  });

  it("an unread stream numbers its events but keeps none of them", async () => {
    const stream = new EventStream<number>(undefined, { unread: true });
    expect([stream.push(1), stream.push(2), stream.push(3)]).toEqual([1, 2, 3]);
    await stream.handled(3);
    stream.end();
    expect(await drain(stream)).toEqual([]);
  });
});
