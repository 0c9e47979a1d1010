/**
 * The OpenTelemetry API, loaded only if the application installed it: `@opentelemetry/api` is an optional
 * peer dependency, so cordon never requires it and costs nothing without it.
 */
import { createRequire } from "node:module";
import type * as OTel from "@opentelemetry/api";

/** The parts of `@opentelemetry/api` cordon uses. */
export type OTelApi = Pick<typeof OTel, "trace" | "context" | "SpanStatusCode">;

let loaded: OTelApi | null | undefined;

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
