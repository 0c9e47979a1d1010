/**
 * The OpenTelemetry API, loaded only if the application installed it: `@opentelemetry/api` is an optional
 * peer dependency, so cordon never requires it and costs nothing without it.
 */
import { createRequire } from "node:module";
import type * as OTel from "@opentelemetry/api";

/** The parts of `@opentelemetry/api` cordon uses. */
export type OTelApi = Pick<typeof OTel, "trace" | "context" | "SpanStatusCode">;

let loaded: OTelApi | null | undefined;

/**
 * Where `@opentelemetry/api` 1.x keeps whatever an application registered with it (its global symbol).
 * Internal to the API, but no public call answers "did anything register?" without loading the API:
 * test/tracing/otel-registered.test.ts holds it for the oldest, the installed and the newest 1.x.
 */
const REGISTERED = Symbol.for("opentelemetry.js.api.1");

/**
 * Whether anything in this process registered with the OpenTelemetry API (a tracer provider, a context
 * manager): until then no span could record, and the API (some 45 modules) need not be loaded at all.
 */
export function otelRegistered(): boolean {
  return (globalThis as Record<symbol, unknown>)[REGISTERED] !== undefined;
}

/** The application's `@opentelemetry/api`, or undefined when it is not installed. Looked up once. */
export function otelApi(): OTelApi | undefined {
  if (loaded === undefined) {
    try {
      // The CommonJS build shares the global tracer provider with the ESM build (a global symbol).
      loaded = createRequire(import.meta.url)("@opentelemetry/api") as OTelApi;
    } catch {
      loaded = null;
    }
  }
  return loaded ?? undefined;
}
