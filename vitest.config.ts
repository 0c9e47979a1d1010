import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import entries from "./scripts/entries.json" with { type: "json" };

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/**
 * The provider SDKs' previous majors, installed beside the current ones under other names (package.json
 * devDependencies): the adapters' tests run once more against them, since both majors are in the peer
 * ranges.
 */
const PREVIOUS_MAJORS = [
  { find: /^ai(\/.*)?$/, replacement: "ai-6$1" },
  { find: /^openai(\/.*)?$/, replacement: "openai-6$1" },
  { find: /^@ai-sdk\/openai(\/.*)?$/, replacement: "@ai-sdk/openai-3$1" },
];

export default defineConfig({
  resolve: {
    // The package's entries as their sources. Subpaths first: an alias also matches as a prefix.
    alias: Object.entries(entries)
      .sort(([a], [b]) => b.length - a.length)
      .map(([specifier, source]) => ({
        find: specifier === "cordon" ? /^cordon$/ : specifier,
        replacement: here(`./${source}`),
      })),
  },
  test: {
    globalSetup: ["test/cache-home.ts"],
    // isolated-vm needs --no-node-snapshot in every worker process that loads it.
    pool: "forks",
    execArgv: ["--no-node-snapshot"],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    projects: [
      { extends: true, test: { name: "cordon", include: ["test/**/*.test.ts"] } },
      {
        extends: true,
        resolve: { alias: PREVIOUS_MAJORS },
        test: {
          name: "previous SDK majors",
          include: ["test/providers/openai.test.ts", "test/providers/ai-sdk.test.ts"],
        },
      },
    ],
  },
});
