/**
 * A corpus catalog: one stable set of tools for a code mode to keep, whose calls go to fresh fixtures after
 * every `reset()`, counted, so that a runner can tell whether a program called any tool and whether it took
 * an effect. Every program then starts from the same data, whatever the programs before it refunded or
 * posted, and its `returns:` holds however many times and in whatever order the programs run.
 */

import type { AnyTool } from "../../../../src/index.js";
import { Toolset } from "../../../../src/index.js";

/** The catalogs the corpus programs are written against. */
export type CatalogName = "shop" | "workspace";

/** What the tools of a catalog did since the last reset. */
export interface CatalogCounts {
  /** Tool runs started (a call refused before it ran, for invalid arguments or an unknown tool, is not one). */
  calls: number;
  /** Runs of tools that are not read-only which returned: effects taken outside the sandbox. */
  effects: number;
}

/** A catalog ready for a runner. */
export interface CorpusCatalog {
  readonly name: CatalogName;
  /** The tools a code mode is made with; they call the current fixtures' tools of the same names. */
  readonly tools: Toolset;
  /** Fresh fixtures, and counts back to zero: call it before each run. */
  reset(): Promise<void>;
  /** What the tools did since the last reset (a snapshot). */
  counts(): CatalogCounts;
}

/**
 * A catalog over `load`, which gives a new set of the same tools over fresh data each time it is called.
 * The tools keep their names, schemas and options; only `run` goes through the counter to the current set.
 */
export async function countingCatalog(
  name: CatalogName,
  load: () => Toolset | Promise<Toolset>,
): Promise<CorpusCatalog> {
  let current = await load();
  let counts: CatalogCounts = { calls: 0, effects: 0 };
  const counted = (original: AnyTool): AnyTool => ({
    ...original,
    run: async (args, ctx) => {
      counts.calls++;
      const live = current.get(original.name);
      if (!live) throw new Error(`The fixtures of catalog ${name} lost the tool ${original.name}.`);
      const value = await live.run(args, ctx);
      if (original.options.readOnly !== true) counts.effects++;
      return value;
    },
  });
  return {
    name,
    tools: new Toolset(current.list().map(counted)),
    async reset() {
      current = await load();
      counts = { calls: 0, effects: 0 };
    },
    counts: () => ({ ...counts }),
  };
}
