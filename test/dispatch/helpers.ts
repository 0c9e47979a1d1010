import { z } from "zod";
import { type DispatchEvent, type DispatchHandle, type ToolResult, Toolset, tool } from "../../src/index.js";

/** Reads every event of a handle, answering nothing, then returns the events and results. */
export async function drain(
  handle: DispatchHandle,
): Promise<{ events: DispatchEvent[]; results: ToolResult[] }> {
  const events: DispatchEvent[] = [];
  for await (const event of handle) events.push(event);
  return { events, results: await handle.results() };
}

/** A promise and the functions that settle it. */
export function deferred<T = void>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Waits `ms` milliseconds. */
export const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A tool that echoes its text argument. */
export const echo = tool({
  name: "echo",
  description: "Echo the text back.",
  input: z.object({ text: z.string() }),
  run: ({ text }) => text,
});

/** A toolset of the given tools. */
export const toolsetOf = (...tools: Parameters<Toolset["add"]>[0][]) => new Toolset(tools);

/** The result for a call id. */
export function resultFor(results: ToolResult[], callId: string): ToolResult {
  const result = results.find((r) => r.callId === callId);
  if (!result) throw new Error(`no result for ${callId}`);
  return result;
}
