import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import entries from "./scripts/entries.json" with { type: "json" };

export default defineConfig({
  resolve: {
    // The package's entries as their sources. Subpaths first: an alias also matches as a prefix.
    alias: Object.entries(entries)
      .sort(([a], [b]) => b.length - a.length)
      .map(([specifier, source]) => ({
        find: specifier === "cordon" ? /^cordon$/ : specifier,
        replacement: fileURLToPath(new URL(`./${source}`, import.meta.url)),
      })),
  },
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/cache-home.ts"],
    // isolated-vm needs --no-node-snapshot in every worker process that loads it.
    pool: "forks",
    poolOptions: { forks: { execArgv: ["--no-node-snapshot"] } },
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
