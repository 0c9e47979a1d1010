/**
 * The MCP server's code mode is rebuilt whenever the catalog changes (an upstream's list_changed). Each
 * generation holds its own code mode, with a type checker worker under `--typecheck`: a replaced one is
 * closed once no run_code call runs on it, so a burst of catalog changes cannot pile up checkers, and a
 * call that started on it still finishes there.
 */

import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { isolateEnvironment } from "../../environments/in-process/index.js";
import { type AnyTool, tool } from "../../src/index.js";
import { type CatalogSnapshot, ToolCatalog } from "../../src/mcp/catalog.js";
import { CodeHost } from "../../src/mcp/code-host.js";
import { Toolset } from "../../src/tools/toolset.js";

/** A catalog whose tools change when the test says so, as an upstream's list_changed would. */
class ChangingCatalog extends ToolCatalog {
  #tools: AnyTool[];
  readonly #listeners = new Set<() => void>();

  constructor(tools: AnyTool[]) {
    super({ local: [], upstreams: [], timeoutMs: 5_000, log: () => {} });
    this.#tools = tools;
  }

  override onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  override snapshot(): CatalogSnapshot {
    return { tools: new Toolset([...this.#tools]), unavailable: [] };
  }

  change(tools: AnyTool[]): void {
    this.#tools = tools;
    for (const listener of this.#listeners) listener();
  }
}

const numbered = (n: number) =>
  tool({ name: `tool_${n}`, description: `Tool ${n}.`, input: z.object({}), run: () => n });

const hosts: CodeHost[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.close()));
});

function hostOver(catalog: ToolCatalog): CodeHost {
  const host = new CodeHost({ catalog, environment: isolateEnvironment(), typecheck: "report" });
  hosts.push(host);
  return host;
}

const noApproval = async () => ({ approved: false as const, reason: "no approvals in this test" });

describe("the MCP server's code mode generations", () => {
  it("a burst of catalog changes leaves one generation open, not one type checker per change", async () => {
    const catalog = new ChangingCatalog([numbered(0)]);
    const host = hostOver(catalog);
    for (let n = 1; n <= 20; n++) catalog.change([numbered(n)]);
    expect(host.openGenerations).toBe(1);
    const result = await host.runCode(
      { code: "return await tools.tool_20({});" },
      { signal: new AbortController().signal, approve: noApproval },
    );
    expect(result.ok).toBe(true);
    expect(result.output).toContain("20");
  });

  it("a run that started before the change finishes on its generation, which closes when it ends", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let started!: () => void;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const slow = tool({
      name: "slow",
      description: "Waits until the test releases it.",
      input: z.object({}),
      run: async () => {
        started();
        await held;
        return "released";
      },
    });
    const catalog = new ChangingCatalog([slow]);
    const host = hostOver(catalog);
    const call = host.runCode(
      { code: "return await tools.slow({});" },
      { signal: new AbortController().signal, approve: noApproval },
    );
    await running;
    catalog.change([numbered(1)]);
    expect(host.openGenerations).toBe(2);
    release();
    const result = await call;
    expect(result.ok).toBe(true);
    expect(result.output).toContain("released");
    expect(host.openGenerations).toBe(1);
  });
});
