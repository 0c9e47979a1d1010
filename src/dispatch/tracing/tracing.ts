/**
 * OpenTelemetry spans for dispatches, calls, attempts and code runs, built from the dispatcher's own
 * events. A dispatch whose span would not record (no SDK registered, or sampled out) gets no trace at
 * all, so an application without a tracer pays at most one non-recording span per dispatch and nothing
 * per call (nothing at all, not even loading the API, while nothing registered with OpenTelemetry).
 *
 * The dispatcher owns every piece: its {@link Tracing} settings, each root turn's {@link TurnTrace}
 * (kept on the turn), and each code run's {@link CodeRunSpan} (kept by the run it opened). Nothing is
 * looked up in a registry, so no caller has to start anything in a particular order.
 */
import type { Attributes, Span, Tracer, TracerProvider } from "@opentelemetry/api";
import type { RunContext } from "../../tools/types.js";
import type { CallFailure, DispatchEvent, RunSummary } from "../types.js";
import { TRACER_NAME, type TracerProviderLike, type TracingOptions } from "./options.js";
import { type OTelApi, otelApi, otelRegistered } from "./otel.js";

/** What a recording trace needs: the API, a tracer, and the settings of the dispatcher it belongs to. */
interface Recorder {
  api: OTelApi;
  tracer: Tracer;
  tracing: Tracing;
}

/** A dispatcher's tracing settings: where spans go and what they may record. */
export class Tracing {
  readonly recordArguments: boolean;
  readonly recordResults: boolean;
  readonly #provider: TracerProviderLike | undefined;

  constructor(options: TracingOptions) {
    this.recordArguments = options.recordArguments === true;
    this.recordResults = options.recordResults === true;
    this.#provider = options.tracerProvider;
  }

  /**
   * Starts a span under `parent` (else under the active context) and returns it only when it records;
   * a span that would not record is ended at once and nothing else is set up.
   */
  start(name: string, parent: Span | undefined): { recorder: Recorder; span: Span } | undefined {
    if (!this.#provider && !otelRegistered()) return undefined;
    const api = otelApi();
    if (!api) return undefined;
    const tracer = this.#tracer(api);
    if (!tracer) return undefined;
    const active = api.context.active();
    const span = tracer.startSpan(name, undefined, parent ? api.trace.setSpan(active, parent) : active);
    if (!span.isRecording()) {
      span.end();
      return undefined;
    }
    return { recorder: { api, tracer, tracing: this }, span };
  }

  /**
   * The tracer to use now, asked per span: the global provider may be registered (or replaced) after this
   * dispatcher was made. Undefined while the global provider has no SDK behind it, the common case
   * without tracing, which then costs no span at all.
   */
  #tracer(api: OTelApi): Tracer | undefined {
    if (this.#provider) return this.#provider.getTracer(TRACER_NAME) as Tracer;
    const global = api.trace.getTracerProvider() as TracerProvider & {
      // The global provider is a proxy; without a registered SDK it has no delegate tracer.
      getDelegateTracer?: (name: string) => Tracer | undefined;
    };
    return global.getDelegateTracer ? global.getDelegateTracer(TRACER_NAME) : global.getTracer(TRACER_NAME);
  }

  /**
   * Starts the span of a root dispatch and the trace its calls report to, under `parent` (a code run
   * made without a model: its dispatch is the run's child) or else the active context.
   */
  startDispatch(init: { runId: string; callCount: number; parent?: CodeRunSpan }): TurnTrace | undefined {
    const started = this.start("cordon.dispatch", init.parent?.span);
    if (!started) return undefined;
    started.span.setAttributes({ "cordon.run_id": init.runId, "cordon.dispatch.calls": init.callCount });
    return new TurnTrace(started.recorder, started.span);
  }

  /** Starts the span of a code run made without a model (no run_code call to nest under). */
  startCodeRun(code: string): CodeRunSpan | undefined {
    const started = this.start("cordon.code_run", undefined);
    return started && new CodeRunSpan(started.recorder, started.span, code, () => {});
  }
}

interface OpenCall {
  span: Span;
  attempt: Span | undefined;
  attemptNumber: number;
}

/** The spans of one root dispatch and of every call made in it, nested calls from code included. */
export class TurnTrace {
  readonly #recorder: Recorder;
  readonly #dispatchSpan: Span;
  readonly #calls = new Map<string, OpenCall>();
  /** The span of each code run of this turn in progress, by the context its calls are made under. */
  readonly #runSpans = new Map<RunContext, Span>();

  constructor(recorder: Recorder, dispatchSpan: Span) {
    this.#recorder = recorder;
    this.#dispatchSpan = dispatchSpan;
  }

  /** An event observer for the calls of one dispatch scope: the root's, or a nested one made from code. */
  observer(parent?: RunContext): (event: DispatchEvent) => void {
    const parentSpan = parent ? this.#spanOf(parent) : this.#dispatchSpan;
    return (event) => this.#record(event, parentSpan);
  }

  /** Ends the dispatch span, noting why the turn stopped early if it did. */
  end(stopped: Error | undefined): void {
    if (stopped) {
      const kind = stopped.name === "BudgetExceeded" ? "budget" : "cancelled";
      this.#dispatchSpan.setAttribute("cordon.dispatch.stopped", kind);
    }
    this.#dispatchSpan.end();
  }

  /**
   * Starts the span of a code run made by the run_code call whose context is `parent`; the run's calls,
   * made under `context`, become its children until the span ends.
   */
  startRun(parent: RunContext, context: RunContext, code: string): CodeRunSpan {
    const span = this.#child("cordon.code_run", this.#spanOf(parent));
    this.#runSpans.set(context, span);
    return new CodeRunSpan(this.#recorder, span, code, () => this.#runSpans.delete(context));
  }

  /** The span calls made under `ctx` belong to: its code run, else its attempt, else its call. */
  #spanOf(ctx: RunContext): Span {
    const run = this.#runSpans.get(ctx);
    if (run) return run;
    const call = this.#calls.get(ctx.callId);
    if (!call) return this.#dispatchSpan;
    return call.attempt && call.attemptNumber === ctx.attempt ? call.attempt : call.span;
  }

  #child(name: string, parent: Span, attributes?: Attributes): Span {
    const { api, tracer } = this.#recorder;
    return tracer.startSpan(name, { attributes }, api.trace.setSpan(api.context.active(), parent));
  }

  #open(callId: string, name: string, parent: Span, parentCallId: string | undefined): OpenCall {
    const span = this.#child(`execute_tool ${name}`, parent, {
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": name,
      "gen_ai.tool.call.id": callId,
      "gen_ai.tool.type": "function",
      ...(parentCallId === undefined ? {} : { "cordon.parent_call_id": parentCallId }),
    });
    const call: OpenCall = { span, attempt: undefined, attemptNumber: 0 };
    this.#calls.set(callId, call);
    return call;
  }

  #record(event: DispatchEvent, parent: Span): void {
    const { tracing } = this.#recorder;
    if (event.type === "requested") {
      const call = this.#open(event.callId, event.name, parent, event.parentCallId);
      if (tracing.recordArguments) {
        call.span.setAttribute("gen_ai.tool.call.arguments", argumentsText(event.arguments));
      }
      return;
    }
    const call =
      this.#calls.get(event.callId) ??
      // A call the turn stopped before it was requested reports only its failure.
      (event.type === "failed"
        ? this.#open(event.callId, event.name, parent, event.parentCallId)
        : undefined);
    if (!call) return;
    switch (event.type) {
      case "approval_required":
        call.span.addEvent("cordon.approval_required");
        return;
      case "approval_decided":
        call.span.addEvent("cordon.approval_decided", {
          "cordon.approval.approved": event.approved,
          "cordon.approval.by": event.by,
          ...(tracing.recordArguments && event.reason !== undefined
            ? { "cordon.approval.reason": event.reason }
            : {}),
        });
        return;
      case "started":
        call.attempt = this.#child("cordon.attempt", call.span, {
          "gen_ai.tool.name": event.name,
          "cordon.attempt": event.attempt,
        });
        call.attemptNumber = event.attempt;
        return;
      case "retrying":
        this.#endAttempt(call, event.error);
        call.span.addEvent("cordon.retrying", {
          "cordon.attempt": event.attempt,
          "cordon.retry.delay_ms": event.delayMs,
          "error.type": event.error.kind,
        });
        return;
      case "completed":
        this.#endAttempt(call, undefined);
        call.span.updateName(`execute_tool ${event.name}`);
        call.span.setAttributes({
          "gen_ai.tool.name": event.name,
          "cordon.outcome": "ok",
          "cordon.attempts": event.attempts,
          "cordon.truncated": event.truncated,
          ...(tracing.recordResults ? { "gen_ai.tool.call.result": event.output } : {}),
        });
        this.#endCall(event.callId, call);
        return;
      case "failed":
        this.#endAttempt(call, event.attempts > 0 ? event.error : undefined);
        call.span.updateName(`execute_tool ${event.name}`);
        call.span.setAttributes({
          "gen_ai.tool.name": event.name,
          "cordon.outcome": event.error.kind,
          "cordon.attempts": event.attempts,
          ...(tracing.recordResults ? { "gen_ai.tool.call.result": event.output } : {}),
        });
        this.#fail(call.span, event.error);
        this.#endCall(event.callId, call);
        return;
    }
  }

  #endAttempt(call: OpenCall, failure: CallFailure | undefined): void {
    if (!call.attempt) return;
    if (failure) this.#fail(call.attempt, failure);
    call.attempt.end();
    call.attempt = undefined;
  }

  #endCall(callId: string, call: OpenCall): void {
    call.span.end();
    if (this.#calls.get(callId) === call) this.#calls.delete(callId);
  }

  #fail(span: Span, failure: CallFailure): void {
    span.setAttribute("error.type", failure.kind);
    span.setStatus({
      code: this.#recorder.api.SpanStatusCode.ERROR,
      message: this.#recorder.tracing.recordArguments ? failure.message : failure.kind,
    });
  }
}

/** The span of one code run; its `tools.*` calls are its children. */
export class CodeRunSpan {
  readonly span: Span;
  readonly #recorder: Recorder;
  readonly #release: () => void;

  constructor(recorder: Recorder, span: Span, code: string, release: () => void) {
    this.#recorder = recorder;
    this.span = span;
    this.#release = release;
    if (recorder.tracing.recordArguments) span.setAttribute("cordon.code_run.code", code);
  }

  /** Records how the run ended and ends the span. */
  end(result: RunSummary): void {
    this.#release();
    this.span.setAttributes({
      "cordon.code_run.status": result.status,
      "cordon.code_run.tool_calls": result.calls.length,
      "cordon.code_run.log_entries": result.logs.length,
    });
    if (result.status !== "ok") {
      this.span.setAttribute("error.type", result.error?.name ?? result.status);
      const detail = this.#recorder.tracing.recordArguments ? result.error?.message : undefined;
      this.span.setStatus({
        code: this.#recorder.api.SpanStatusCode.ERROR,
        message: detail ?? result.status,
      });
    }
    this.span.end();
  }
}

function argumentsText(args: unknown): string {
  if (typeof args === "string") return args;
  try {
    return JSON.stringify(args) ?? "";
  } catch {
    return "[arguments that are not JSON]";
  }
}
