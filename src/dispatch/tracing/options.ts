/** Anything with OpenTelemetry's `TracerProvider.getTracer`, such as an SDK's `BasicTracerProvider`. */
export interface TracerProviderLike {
  getTracer(name: string, version?: string): unknown;
}

/**
 * OpenTelemetry tracing of a dispatcher: a span per dispatch, per call, per attempt and per code run.
 * Nothing is recorded unless a tracer provider records (an SDK registered globally, or `tracerProvider`).
 */
export interface TracingOptions {
  /** Where spans go. Default: the global provider of `@opentelemetry/api`, when that package is installed. */
  tracerProvider?: TracerProviderLike;
  /**
   * Also record argument values (`gen_ai.tool.call.arguments`), run_code's code, failure messages and
   * approval reasons, which can quote arguments. Default false: arguments may hold secrets.
   */
  recordArguments?: boolean;
  /** Also record the output the model reads (`gen_ai.tool.call.result`). Default false. */
  recordResults?: boolean;
}

/** The instrumentation scope name of cordon's spans. */
export const TRACER_NAME = "cordon";
