/**
 * Approval of gated calls made from code that an MCP client asked cordon to run: the client's user is
 * asked through MCP elicitation when the client supports it; otherwise --approve decides; never open.
 */

import { CancelledNotificationSchema, ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt, SHOP_TOOLS } from "../cli/helpers.js";
import { type Connected, connectStdio, runCode, textOf } from "./helpers.js";

const REFUND = `try {
  const r = await tools.refund_order({ order_id: "A115", reason: "late delivery" });
  return ["refunded", r.amount];
} catch (e) { return [e.kind, e.message]; }`;

let mcp: Connected | undefined;

beforeAll(() => ensureBuilt());

afterEach(async () => {
  await mcp?.close();
  mcp = undefined;
});

describe("approvals in cordon mcp", () => {
  it("asks the client's user through elicitation, and runs the call when they allow it", async () => {
    mcp = await connectStdio(["--tools", SHOP_TOOLS], () => ({ action: "accept", content: { allow: true } }));
    const result = await runCode(mcp.client, REFUND);
    expect(textOf(result)).toContain('["refunded",54]');
    expect(mcp.questions).toHaveLength(1);
    expect(mcp.questions[0]).toContain("refund_order");
    expect(mcp.questions[0]).toContain('order_id: "A115"');
  });

  it("an approval question the user answered is not cancelled afterwards (no notifications/cancelled for it)", async () => {
    mcp = await connectStdio(["--tools", SHOP_TOOLS], () => ({ action: "accept", content: { allow: true } }));
    const cancelled: unknown[] = [];
    mcp.client.setNotificationHandler(CancelledNotificationSchema, async (notification) => {
      cancelled.push(notification.params);
    });
    const result = await runCode(mcp.client, REFUND);
    expect(textOf(result)).toContain('["refunded",54]');
    expect(mcp.questions).toHaveLength(1);
    // A cancellation would have been written before the run's result on the same pipe.
    expect(cancelled).toEqual([]);
  });

  it("a reason padded with spaces cannot push the order id out of the question, and the full arguments come with it", async () => {
    mcp = await connectStdio(["--tools", SHOP_TOOLS], () => ({ action: "decline" }));
    const padded = `try {
      await tools.refund_order({ reason: "late" + " ".repeat(5000) + "(see notes)\u202E", order_id: "A115" });
    } catch (e) { return e.kind; }`;
    await runCode(mcp.client, padded);
    expect(mcp.questions).toHaveLength(1);
    const question = mcp.questions[0]!;
    expect(question).toContain('order_id: "A115"');
    expect(question).toContain('reason: "late⟨5,000 spaces⟩(see notes)\\u{202E}"');
    expect(question).not.toContain("\u202E");
    const schema = JSON.stringify(mcp.elicitations[0]);
    expect(schema).toContain("The call's arguments in full");
  });

  it("denies the call when the user declines, or accepts without allowing", async () => {
    mcp = await connectStdio(["--tools", SHOP_TOOLS], (message) =>
      message.includes("A115") ? { action: "decline" } : { action: "accept", content: { allow: false } },
    );
    const declined = await runCode(mcp.client, REFUND);
    expect(textOf(declined)).toContain('"denied"');
    expect(textOf(declined)).toContain("the user chose to decline");
    const unchecked = await runCode(
      mcp.client,
      `try { await tools.refund_order({ order_id: "A111", reason: "late" }); return "ran"; } catch (e) { return e.message; }`,
    );
    expect(textOf(unchecked)).toContain("the user did not allow it");
  });

  it("with a client that cannot elicit, --approve ask (the default) denies and says why", async () => {
    mcp = await connectStdio(["--tools", SHOP_TOOLS]);
    const result = await runCode(mcp.client, REFUND);
    expect(textOf(result)).toContain('"denied"');
    expect(textOf(result)).toContain("does not support elicitation");
  });

  it("a client that supports only URL-mode elicitation is not sent a form: denied at once, saying why, with no doubled MCP error prefix", async () => {
    mcp = await connectStdio(
      ["--tools", SHOP_TOOLS],
      () => ({ action: "accept", content: { allow: true } }),
      {
        url: {},
      },
    );
    const result = await runCode(mcp.client, REFUND);
    expect(textOf(result)).toContain('"denied"');
    expect(textOf(result)).toContain("supports only URL-mode elicitation");
    expect(textOf(result)).not.toContain("MCP error -32602: MCP error");
    expect(mcp.questions).toHaveLength(0);
  });

  it("a client whose elicitation fails denies the call, naming the client's error once", async () => {
    mcp = await connectStdio(["--tools", SHOP_TOOLS], () => {
      throw new McpError(ErrorCode.InvalidParams, "this client cannot show that form");
    });
    const result = await runCode(mcp.client, REFUND);
    expect(textOf(result)).toContain('"denied"');
    expect(textOf(result)).toContain("this client cannot show that form");
    expect(textOf(result)).not.toContain("MCP error -32602: MCP error");
  });

  it("--approve all allows gated calls without asking, even a client that could be asked", async () => {
    mcp = await connectStdio(["--tools", SHOP_TOOLS, "--approve", "all"], () => ({ action: "decline" }));
    const result = await runCode(mcp.client, REFUND);
    expect(textOf(result)).toContain('["refunded",54]');
    expect(mcp.questions).toHaveLength(0);
  });

  it("calls under the approval threshold run without a question", async () => {
    mcp = await connectStdio(["--tools", SHOP_TOOLS], () => ({ action: "decline" }));
    const result = await runCode(
      mcp.client,
      `return (await tools.refund_order({ order_id: "A103", reason: "late delivery" })).amount;`,
    );
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toContain("38");
    expect(mcp.questions).toHaveLength(0);
  });
});
