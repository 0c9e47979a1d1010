import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    alias: { cordon: fileURLToPath(new URL("./src/index.ts", import.meta.url)) },
  },
  test: {
    include: ["test/**/*.test.ts"],
    // isolated-vm needs --no-node-snapshot in every worker process that loads it.
    pool: "forks",
    poolOptions: { forks: { execArgv: ["--no-node-snapshot"] } },
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
