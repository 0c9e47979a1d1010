/**
 * Every MCP content type through `cordon mcp`: a real upstream (the SDK's McpServer, test/mcp/fixtures/
 * media-server.ts) answers with images, audio, embedded resources and resource links; the model's code
 * receives them as data, and what it returns reaches the official SDK client as MCP content of the same
 * type. What the code fabricates is checked before it goes out.
 */

import { join } from "node:path";
import type { CallToolResult, ContentBlock } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../cli/helpers.js";
import { BLOB_BASE64, PNG_BASE64, README_TEXT, WAV_BASE64 } from "./fixtures/media-data.js";
import { type Connected, connectStdio, runCode } from "./helpers.js";

const MEDIA_COMMAND = `${process.execPath} --import tsx ${join(import.meta.dirname, "fixtures/media-server.ts")}`;
const MEDIA_TOOLS = join(import.meta.dirname, "fixtures/media-tools.ts");

let mcp: Connected;

beforeAll(async () => {
  ensureBuilt();
  mcp = await connectStdio(["--tools", MEDIA_TOOLS, "--upstream", `media=${MEDIA_COMMAND}`]);
}, 60_000);

afterAll(async () => {
  await mcp?.close();
});

/** The run's text report (the first block), after checking the run succeeded. */
function reportOf(result: CallToolResult): string {
  const [first] = result.content;
  expect(first?.type).toBe("text");
  const text = first?.type === "text" ? first.text : "";
  expect(result.isError, text).toBeFalsy();
  return text;
}

/** The blocks after the report. */
function sentContent(result: CallToolResult): ContentBlock[] {
  return result.content.slice(1);
}

const PNG_IMAGE = { type: "image", data: PNG_BASE64, mimeType: "image/png" };

describe("MCP content through cordon mcp (official client, real upstream)", () => {
  it("an image fetched upstream and returned by the code reaches the client as an image block with the same bytes and mimeType", async () => {
    const result = await runCode(mcp.client, "const chart = await tools.media__chart({}); return chart;");
    const report = reportOf(result);
    expect(report).toContain("[image image/png, 77 bytes: sent as MCP content]");
    expect(report).not.toContain(PNG_BASE64);
    expect(sentContent(result)).toEqual([PNG_IMAGE]);
    const image = sentContent(result)[0]!;
    const bytes = Buffer.from(image.type === "image" ? image.data : "", "base64");
    expect(bytes.subarray(1, 4).toString("latin1")).toBe("PNG");
    expect(bytes.equals(Buffer.from(PNG_BASE64, "base64"))).toBe(true);
  });

  it("audio, embedded text and blob resources and resource links arrive in code as data and round-trip", async () => {
    const code = `
      const [audio] = await tools.media__beep({});
      const [readme] = await tools.media__readme({});
      const [bytes] = await tools.media__bytes({});
      const [link] = await tools.media__link({});
      const checks = {
        audio: audio.type === "audio" && audio.mimeType === "audio/wav" && typeof audio.data === "string",
        readme: readme.type === "resource" && readme.resource.uri === "file:///media/README.md" &&
          readme.resource.mimeType === "text/markdown" && readme.resource.text.startsWith("# Media fixture"),
        bytes: bytes.type === "resource" && typeof bytes.resource.blob === "string" && !("text" in bytes.resource),
        link: link.type === "resource_link" && link.uri === "file:///media/big.csv" && link.name === "big.csv" &&
          link.size === 123456,
      };
      return { checks, items: [audio, readme, bytes, link] };`;
    const result = await runCode(mcp.client, code);
    const report = reportOf(result);
    expect(report).toContain('"checks":{"audio":true,"readme":true,"bytes":true,"link":true}');
    expect(sentContent(result)).toEqual([
      { type: "audio", data: WAV_BASE64, mimeType: "audio/wav" },
      {
        type: "resource",
        resource: { uri: "file:///media/README.md", mimeType: "text/markdown", text: README_TEXT },
      },
      {
        type: "resource",
        resource: { uri: "file:///media/bytes.bin", mimeType: "application/octet-stream", blob: BLOB_BASE64 },
      },
      {
        type: "resource_link",
        uri: "file:///media/big.csv",
        name: "big.csv",
        description: "Too big to embed.",
        mimeType: "text/csv",
        size: 123456,
      },
    ]);
    expect(report).toContain("[resource link file:///media/big.csv: sent as MCP content]");
    expect(report).not.toContain(WAV_BASE64);
  });

  it("a result mixing text and an image is an array of items in code; an all-text result stays a string", async () => {
    const code = `
      const mixed = await tools.media__captioned({});
      const lines = await tools.media__lines({});
      return [{ kinds: mixed.map((item) => item.type), caption: mixed[0].text, lines }, mixed];`;
    const result = await runCode(mcp.client, code);
    const report = reportOf(result);
    expect(report).toContain(
      '{"kinds":["text","image"],"caption":"Sales by month","lines":"first\\nsecond"}',
    );
    // The text item stays in the report; the image, two levels down, is sent.
    expect(report).toContain('[{"type":"text","text":"Sales by month"},"[image image/png, 77 bytes');
    expect(sentContent(result)).toEqual([PNG_IMAGE]);
  });

  it("structuredContent still wins, and the declarations show the outputSchema or the content union", async () => {
    const result = await runCode(mcp.client, "return await tools.media__stats({});");
    expect(reportOf(result)).toContain('result: {"count":3,"label":"three"}');
    expect(sentContent(result)).toEqual([]);
    const description = (await mcp.client.listTools()).tools[0]!.description ?? "";
    expect(description).toMatch(
      /media__stats\(args\?: [^)]*\): Promise<\{ count: number; label: string \}>;/,
    );
    // Declared once for every upstream tool without an outputSchema, and named in each signature.
    expect(description).toMatch(
      /type McpToolResult = string \| \(\{ type: "text"; text: string \} \| \{ type: "image" \| "audio"; mimeType: string; data: string \}/,
    );
    expect(description.match(/type McpToolResult =/g)).toHaveLength(1);
    expect(description).toMatch(/media__chart\(args\?: [^)]*\): Promise<McpToolResult>;/);
    expect(description).toContain("is sent to you as MCP content of that type");
  });

  it("an upstream error result still rejects with its text, other blocks named", async () => {
    const code = `try { await tools.media__broken({}); return "no error"; } catch (error) { return { kind: error.kind, message: error.message }; }`;
    const report = reportOf(await runCode(mcp.client, code));
    expect(report).toContain('"kind":"error"');
    expect(report).toContain("the chart could not be drawn\\n[image image/png]");
  });

  it("an invalid item the code fabricates (bad base64, unknown type, wrong field types) is not sent as content", async () => {
    const code = `return {
      valid: { type: "image", mimeType: "image/png", data: "${PNG_BASE64}" },
      badBase64: { type: "image", mimeType: "image/png", data: "not base64!" },
      dataUrl: { type: "image", mimeType: "image/png", data: "data:image/png;base64,${PNG_BASE64}" },
      unknownType: { type: "video", mimeType: "video/mp4", data: "AAAA" },
      numericMime: { type: "audio", mimeType: 42, data: "AAAA" },
      badUri: { type: "resource_link", uri: "not a uri", name: "x" },
      textAndBlob: { type: "resource", resource: { uri: "file:///x", text: "a", blob: "AAAA" } },
    };`;
    const result = await runCode(mcp.client, code);
    const report = reportOf(result);
    // Only the valid one goes out: the rest stay in the report as the code returned them.
    expect(sentContent(result)).toEqual([PNG_IMAGE]);
    expect(report).toContain('"data":"not base64!"');
    expect(report).toContain('"type":"video"');
    expect(report).toContain('"uri":"not a uri"');
  });

  it("a valid item the code builds itself, or a local tool returns, is sent like an upstream's", async () => {
    const code = `const snapshot = await tools.snapshot();
      return { snapshot, made: { type: "image", mimeType: "image/png", data: ${JSON.stringify(PNG_BASE64)} } };`;
    const result = await runCode(mcp.client, code);
    reportOf(result);
    expect(sentContent(result)).toEqual([PNG_IMAGE, PNG_IMAGE]);
  });
});
