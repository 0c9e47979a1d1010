/**
 * The awake loop (sandbox/isolate/awake-loop.ts): after an answer, the agent's event loop polls without
 * sleeping for a moment while a core is spare, so the code's next call finds its thread awake. What is
 * checked is what the loop does (it does not sleep in its poll, it stops, it stays out of the way of a
 * busy machine), read from Node's own account of the loop's idle time.
 */

import { type AddressInfo, connect, createServer } from "node:net";
import { performance } from "node:perf_hooks";
import { describe, expect, it } from "vitest";
import { isAwake, stayAwake } from "../../sandbox/isolate/awake-loop.js";

const spare = () => true;
const noSpare = () => false;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How much of `ms` the event loop spent outside its poll's wait (1: it never slept). */
async function busyShareOver(ms: number): Promise<number> {
  const before = performance.eventLoopUtilization();
  await pause(ms);
  return performance.eventLoopUtilization(before).utilization;
}

describe("the awake loop", () => {
  it("keeps the event loop from sleeping in its poll for the time asked, then lets it sleep again", async () => {
    await pause(5);
    expect(isAwake()).toBe(false);
    stayAwake(60_000, spare);
    expect(isAwake()).toBe(true);
    // While awake the loop goes round without waiting: nearly none of its time is idle.
    expect(await busyShareOver(30)).toBeGreaterThan(0.8);
    await pause(60);
    expect(isAwake()).toBe(false);
    // Asleep again: a timer's wait is spent idle in the poll.
    expect(await busyShareOver(30)).toBeLessThan(0.5);
  });

  it("does not keep the loop awake while the machine has no core to spare", async () => {
    await pause(5);
    stayAwake(60_000, noSpare);
    expect(isAwake()).toBe(false);
    expect(await busyShareOver(30)).toBeLessThan(0.5);
  });

  it("is not started for no time, and a later answer moves the end out", async () => {
    await pause(5);
    stayAwake(0, spare);
    expect(isAwake()).toBe(false);
    stayAwake(20_000, spare);
    await pause(10);
    stayAwake(60_000, spare);
    await pause(30);
    // 40 ms after the first answer, past its 20 ms: the second one's 60 ms still hold.
    expect(isAwake()).toBe(true);
    await pause(60);
    expect(isAwake()).toBe(false);
  });

  it("holds nothing up while awake: a timer fires and a message on a socket is read as they come", async () => {
    await pause(5);
    const server = createServer((socket) => socket.on("data", (data) => socket.end(data)));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    try {
      stayAwake(200_000, spare);
      const fired = pause(5).then(() => isAwake());
      const echoed = new Promise<{ text: string; awake: boolean }>((resolve, reject) => {
        const socket = connect(port, "127.0.0.1", () => socket.write("ping"));
        let text = "";
        socket.on("data", (data) => {
          text += data.toString();
        });
        socket.on("end", () => resolve({ text, awake: isAwake() }));
        socket.on("error", reject);
      });
      // Both came while the loop was still being kept awake: it was not held.
      expect(await fired).toBe(true);
      expect(await echoed).toEqual({ text: "ping", awake: true });
    } finally {
      server.close();
      await pause(210);
    }
  });
});
