/**
 * Every tool cordon's MCP server offers to code: the local tools module's, plus the tools of each
 * upstream MCP server under its namespace. It tells its listener whenever the set changes (an upstream
 * started, exited, or said its tools changed).
 */

import { Toolset } from "../tools/toolset.js";
import type { AnyTool } from "../tools/types.js";
import type { UpstreamServer } from "./upstream/server.js";
import { upstreamTools } from "./upstream/tools.js";

/** One snapshot of the catalog. */
export interface CatalogSnapshot {
  tools: Toolset;
  /** Upstreams that are not available now, and why, for the model's instructions. */
  unavailable: { name: string; reason: string }[];
}

/** The local tools and the upstream servers, seen as one set of tools. */
export class ToolCatalog {
  readonly #local: readonly AnyTool[];
  readonly #upstreams: readonly UpstreamServer[];
  readonly #timeoutMs: number;
  readonly #log: (line: string) => void;
  /** Skipped tools already reported, so a relist does not repeat the same warning. */
  readonly #reported = new Set<string>();

  constructor(options: {
    local: readonly AnyTool[];
    upstreams: readonly UpstreamServer[];
    /** Each upstream call's timeout, in ms. */
    timeoutMs: number;
    log: (line: string) => void;
  }) {
    this.#local = options.local;
    this.#upstreams = options.upstreams;
    this.#timeoutMs = options.timeoutMs;
    this.#log = options.log;
  }

  get upstreams(): readonly UpstreamServer[] {
    return this.#upstreams;
  }

  /** Starts every upstream at once; resolves when each is ready or has failed. */
  async start(): Promise<void> {
    await Promise.all(this.#upstreams.map((upstream) => upstream.start()));
  }

  /** Calls `listener` whenever an upstream's tools or availability change. Returns an unsubscribe. */
  onChange(listener: () => void): () => void {
    const unsubscribe = this.#upstreams.map((upstream) => upstream.onChange(listener));
    return () => {
      for (const off of unsubscribe) off();
    };
  }

  /** The tools now: local ones first, then each upstream's (an upstream tool whose name is taken is skipped). */
  snapshot(): CatalogSnapshot {
    const tools = new Toolset([...this.#local]);
    const unavailable: CatalogSnapshot["unavailable"] = [];
    for (const upstream of this.#upstreams) {
      if (upstream.state === "failed" && upstream.tools.length === 0) {
        unavailable.push({ name: upstream.name, reason: upstream.failure ?? "it is not running" });
      }
      const { tools: converted, skipped } = upstreamTools(upstream, this.#timeoutMs);
      for (const t of converted) {
        if (tools.get(t.name)) skipped.push({ name: t.name, reason: "a local tool has the same name" });
        else tools.add(t);
      }
      for (const { name, reason } of skipped) {
        const key = `${upstream.name}/${name}/${reason}`;
        if (this.#reported.has(key)) continue;
        this.#reported.add(key);
        this.#log(`upstream ${upstream.name}: skipped its tool ${name}: ${reason}`);
      }
    }
    return { tools, unavailable };
  }

  /** Stops every upstream. */
  async close(): Promise<void> {
    await Promise.all(this.#upstreams.map((upstream) => upstream.close()));
  }
}
