// cordon skips loading the OpenTelemetry API (about 45 modules) until something registered with it,
// which it sees by the global the API keeps its registrations under: no public API answers that without
// loading the API first. These tests pin that global for every version the peer range takes: the oldest
// (1.4.0), the one installed for the other tests, and the newest 1.x (installed under other names).
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");
const run = promisify(execFile);

/** The copies of `@opentelemetry/api` installed for the tests, by the name they are installed under. */
const COPIES = ["otel-api-1.4", "@opentelemetry/api", "otel-api-1.10"];

/** What otelRegistered() says before the API is loaded, once it is loaded, and once a provider is registered. */
async function registeredSteps(copy: string, format: "import" | "require"): Promise<unknown> {
  const load =
    format === "import"
      ? `await import(${JSON.stringify(copy)})`
      : `createRequire(import.meta.url)(${JSON.stringify(copy)})`;
  // A process of its own: the test process registered with the API already.
  const script = `
    import { createRequire } from "node:module";
    import { otelRegistered } from "./src/dispatch/tracing/otel.ts";
    const steps = { before: otelRegistered() };
    const api = ${load};
    steps.loaded = otelRegistered();
    // The provider is never asked for a tracer here: registering it is what is looked at.
    api.trace.setGlobalTracerProvider({ getTracer: () => { throw new Error("not asked"); } });
    steps.tracerProvider = otelRegistered();
    console.log(JSON.stringify(steps));
  `;
  const { stdout } = await run(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    cwd: root,
    timeout: 30_000,
  });
  return JSON.parse(stdout);
}

describe("otelRegistered() across the @opentelemetry/api versions cordon's peer range takes", () => {
  const peerRange = (
    JSON.parse(readFileSync(resolve(root, "package.json"), "utf8")) as {
      peerDependencies: Record<string, string>;
    }
  ).peerDependencies["@opentelemetry/api"];

  it("the oldest copy tested is the peer range's lower bound, and the newest is a later 1.x", () => {
    const version = (name: string) =>
      (
        JSON.parse(readFileSync(resolve(root, "node_modules", name, "package.json"), "utf8")) as {
          version: string;
        }
      ).version;
    expect(peerRange).toBe(`^${version("otel-api-1.4")}`);
    expect(version("otel-api-1.10")).toMatch(/^1\.(1\d|[2-9]\d)\./);
  });

  for (const copy of COPIES) {
    for (const format of ["import", "require"] as const) {
      it(`${copy} (${format}): false until a tracer provider is registered, loading the API included; true after`, async () => {
        expect(await registeredSteps(copy, format)).toEqual({
          before: false,
          loaded: false,
          tracerProvider: true,
        });
      });
    }
  }
});
