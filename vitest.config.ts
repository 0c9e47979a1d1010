import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    // Subpaths first: an alias also matches as a prefix.
    alias: [
      {
        find: "cordon/openai",
        replacement: fileURLToPath(new URL("./src/providers/openai.ts", import.meta.url)),
      },
      {
        find: "cordon/anthropic",
        replacement: fileURLToPath(new URL("./src/providers/anthropic.ts", import.meta.url)),
      },
      {
        find: "cordon/ai-sdk",
        replacement: fileURLToPath(new URL("./src/providers/ai-sdk.ts", import.meta.url)),
      },
      { find: /^cordon$/, replacement: fileURLToPath(new URL("./src/index.ts", import.meta.url)) },
    ],
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
