/**
 * The limit on one message cordon reads from an upstream MCP server (`--upstream-max-message`). Over the
 * SDK's own transport, an answer over its 10 MB buffer closed the transport: a healthy upstream was killed
 * and restarted, and the call failed with "stopped while running ...: it exited". Here an answer over the
 * limit fails only the call it answers, with the size, the limit and the option in its message, while the
 * upstream (the same process) keeps serving. Limits are set small so the test stays light.
 */

import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { classifySkippedLine } from "../../src/mcp/upstream/oversized.js";
import {
  MAX_UPSTREAM_MAX_MESSAGE_BYTES,
  MIN_UPSTREAM_MAX_MESSAGE_BYTES,
} from "../../src/mcp/upstream/spec.js";
import { cordon, ensureBuilt } from "../cli/helpers.js";
import { type Connected, connectStdio, returnedBy } from "./helpers.js";

const LARGE_COMMAND = `${process.execPath} --import tsx ${join(import.meta.dirname, "fixtures/large-result-server.ts")}`;
const LIMIT = 100_000;

let mcp: Connected | undefined;

beforeAll(() => ensureBuilt(), 120_000);

afterEach(async () => {
  await mcp?.close();
  mcp = undefined;
});

function serve(): Promise<Connected> {
  return connectStdio(["--upstream", `big=${LARGE_COMMAND}`, "--upstream-max-message", String(LIMIT)]);
}

describe("what a message too long to read was, from its start and end", () => {
  const skipped = (head: string, tail: string) => classifySkippedLine({ head, tail, bytes: 1 });

  it("a response as the TypeScript SDK writes it carries its id at the end; as others write it, at the start", () => {
    expect(
      skipped('{"result":{"content":[{"type":"text","text":"xx', 'xx"}]},"jsonrpc":"2.0","id":7}'),
    ).toEqual({
      kind: "response",
      id: 7,
    });
    expect(skipped('{"jsonrpc":"2.0","id":"a-1","result":{"content":"xx', 'xx"}}')).toEqual({
      kind: "response",
      id: "a-1",
    });
  });

  it("an id nested in the result is not taken for the message's id", () => {
    expect(skipped('{"result":{"data":"xx', 'xx","id":3}}')).toEqual({ kind: "unknown" });
  });

  it("a request of the server's own and a notification are told apart from answers", () => {
    expect(
      skipped('{"method":"sampling/createMessage","params":{"x":"xx', 'xx"},"jsonrpc":"2.0","id":4}'),
    ).toEqual({
      kind: "request",
      id: 4,
    });
    expect(
      skipped('{"method":"notifications/message","params":{"data":"xx', 'xx"},"jsonrpc":"2.0"}'),
    ).toEqual({
      kind: "notification",
    });
  });

  it("a line that names nothing is unknown", () => {
    expect(skipped("nnnnnnnn", "nnnnnnnn")).toEqual({ kind: "unknown" });
  });
});

describe("cordon mcp: an upstream message over --upstream-max-message", () => {
  it("an answer over the limit fails only its call, naming the size, the limit and the option; the upstream is not restarted", async () => {
    mcp = await serve();
    const value = (await returnedBy(
      mcp,
      `const before = await tools.big__pid({});
       const [large, small] = await Promise.allSettled([
         tools.big__large({ bytes: ${LIMIT * 2} }),
         tools.big__large({ bytes: 10, ms: 300 }),
       ]);
       const after = await tools.big__pid({});
       return {
         before, after,
         large: large.status === "rejected" ? large.reason.message : "answered",
         small: small.status === "fulfilled" ? small.value : small.reason.message,
       };`,
    )) as Record<string, unknown>;
    expect(value.large).toMatch(
      /^big__large failed: The MCP server "big" answered large with a message of [\d,]+ bytes, over the 100,000 bytes cordon reads in one message from an upstream server; the answer was not read \(the server keeps running\)\. Ask for less at a time, or start cordon mcp with a larger --upstream-max-message <bytes>\.$/,
    );
    expect(value.small).toBe("x".repeat(10));
    expect(value.after).toBe(value.before);
    const next = await returnedBy(mcp, "return await tools.big__large({ bytes: 20 });");
    expect(next).toBe("x".repeat(20));
    // cordon's log and its answers come on different pipes: the line may arrive after the answer.
    const logged = mcp;
    await vi.waitFor(() => expect(logged.stderr()).toContain("upstream big: an answer of"), {
      timeout: 15_000,
    });
    expect(mcp.stderr()).not.toContain("upstream big: exited");
  });

  it("a message naming no request fails the calls waiting on that upstream, so none hangs; the upstream keeps serving", async () => {
    mcp = await serve();
    // The noise comes 400 ms after its call reached the server, and the other call's answer 1.5 s after
    // it did: both calls wait when the noise is read, however far apart a busy machine sends them.
    // (Written at once, the noise was read in one CI run before the other call waited on the server,
    // and that call was then answered.)
    const value = (await returnedBy(
      mcp,
      `const before = await tools.big__pid({});
       const settled = await Promise.allSettled([
         tools.big__noise({ bytes: ${LIMIT * 2}, after: 400, ms: 300 }),
         tools.big__large({ bytes: 10, ms: 1500 }),
       ]);
       const after = await tools.big__pid({});
       return { before, after, errors: settled.map((s) => s.status === "rejected" ? s.reason.message : "answered") };`,
    )) as Record<string, unknown>;
    const errors = value.errors as string[];
    expect(errors).toHaveLength(2);
    for (const error of errors) {
      expect(error).toMatch(
        /^big__(noise|large) failed: While running \1, the MCP server "big" sent a message of [\d,]+ bytes, over the 100,000 bytes cordon reads in one message from an upstream server; it was not read, and since it named no request, every call waiting on that server failed with it \(the server keeps running\)\. .*--upstream-max-message <bytes>\.$/,
      );
    }
    expect(value.after).toBe(value.before);
    const logged = mcp;
    await vi.waitFor(
      () =>
        expect(logged.stderr()).toContain(
          "naming no request, was not read; the 2 requests waiting on the server fail",
        ),
      { timeout: 15_000 },
    );
  });

  it("--upstream-max-message out of range is refused with the range", async () => {
    const outcome = await cordon([
      "mcp",
      "--upstream",
      `big=${LARGE_COMMAND}`,
      "--upstream-max-message",
      "10",
    ]);
    expect(outcome.code).not.toBe(0);
    expect(outcome.stderr).toContain(
      `--upstream-max-message 10: expected a whole number from ${MIN_UPSTREAM_MAX_MESSAGE_BYTES} to ${MAX_UPSTREAM_MAX_MESSAGE_BYTES}.`,
    );
  });
});
