import { execFile } from "node:child_process";
import { resolve } from "node:path";
import { promisify } from "node:util";
import { type Tracer, trace } from "@opentelemetry/api";
import {
  AlwaysOffSampler,
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { isolateEnvironment } from "../../src/entries/in-process.js";
import { codeMode, Dispatcher, Toolset, tool } from "../../src/index.js";

const SECRET = "sk-live-4242-do-not-log";

function recording() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { provider, spans: () => exporter.getFinishedSpans() };
}

const lookup = tool({
  name: "lookup",
  description: "Look a key up.",
  input: z.object({ key: z.string() }),
  run: ({ key }) => ({ key, found: true }),
});

const flaky = () => {
  let calls = 0;
  return tool({
    name: "flaky",
    description: "Fails once, then works.",
    input: z.object({}),
    retries: 1,
    run: () => {
      calls++;
      if (calls === 1) throw new Error(`upstream said no to ${SECRET}`);
      return "ok";
    },
  });
};

function byName(spans: ReadableSpan[], name: string): ReadableSpan[] {
  return spans.filter((s) => s.name === name);
}

function parentOf(span: ReadableSpan, spans: ReadableSpan[]): ReadableSpan | undefined {
  const id = span.parentSpanContext?.spanId;
  return spans.find((s) => s.spanContext().spanId === id);
}

/** Everything a span carries as text: attributes, events, status. */
function everythingRecorded(spans: ReadableSpan[]): string {
  return JSON.stringify(spans.map((s) => ({ a: s.attributes, e: s.events, st: s.status, n: s.name })));
}

describe("tracing", () => {
  afterEach(() => trace.disable());

  it("records a dispatch span with a span per call and per attempt under it", async () => {
    const { provider, spans } = recording();
    const d = new Dispatcher(new Toolset([lookup, flaky()]), {
      tracing: { tracerProvider: provider },
      retryDelay: 1,
    });
    await d
      .dispatch([
        { id: "c1", name: "lookup", arguments: { key: "a" } },
        { id: "c2", name: "flaky", arguments: {} },
        { id: "c3", name: "nope", arguments: {} },
      ])
      .results();

    const all = spans();
    const [dispatch] = byName(all, "cordon.dispatch");
    expect(dispatch!.attributes["cordon.dispatch.calls"]).toBe(3);
    const lookupSpan = byName(all, "execute_tool lookup")[0]!;
    expect(parentOf(lookupSpan, all)).toBe(dispatch);
    expect(lookupSpan.attributes).toMatchObject({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "lookup",
      "gen_ai.tool.call.id": "c1",
      "cordon.outcome": "ok",
      "cordon.attempts": 1,
    });

    const flakySpan = byName(all, "execute_tool flaky")[0]!;
    const attempts = byName(all, "cordon.attempt").filter((s) => parentOf(s, all) === flakySpan);
    expect(attempts.map((a) => [a.attributes["cordon.attempt"], a.status.code])).toEqual([
      [1, 2], // SpanStatusCode.ERROR
      [2, 0],
    ]);
    expect(flakySpan.events.map((e) => e.name)).toContain("cordon.retrying");

    const unknown = byName(all, "execute_tool nope")[0]!;
    expect(unknown.attributes["error.type"]).toBe("unknown_tool");
    expect(unknown.status).toEqual({ code: 2, message: "unknown_tool" });
  });

  it("never records argument values, results or failure messages unless asked", async () => {
    const { provider, spans } = recording();
    const d = new Dispatcher(new Toolset([lookup, flaky()]), {
      tracing: { tracerProvider: provider },
      retryDelay: 1,
    });
    await d
      .dispatch([
        { id: "c1", name: "lookup", arguments: { key: SECRET } },
        { id: "c2", name: "flaky", arguments: {} },
        { id: "c3", name: "lookup", arguments: { key: 42, note: SECRET } },
      ])
      .results();
    expect(spans().length).toBeGreaterThan(4);
    expect(everythingRecorded(spans())).not.toContain(SECRET);
  });

  it("records arguments, failure messages and results when asked", async () => {
    const { provider, spans } = recording();
    const d = new Dispatcher(new Toolset([lookup, flaky()]), {
      tracing: { tracerProvider: provider, recordArguments: true, recordResults: true },
      retryDelay: 1,
    });
    await d
      .dispatch([
        { id: "c1", name: "lookup", arguments: { key: SECRET } },
        { id: "c2", name: "flaky", arguments: {} },
      ])
      .results();
    const all = spans();
    const call = byName(all, "execute_tool lookup")[0]!;
    expect(call.attributes["gen_ai.tool.call.arguments"]).toBe(JSON.stringify({ key: SECRET }));
    expect(call.attributes["gen_ai.tool.call.result"]).toBe(JSON.stringify({ key: SECRET, found: true }));
    const failedAttempt = byName(all, "cordon.attempt").find((s) => s.status.code === 2)!;
    expect(failedAttempt.status.message).toContain(`upstream said no to ${SECRET}`);
  });

  it("calls made from code are children of their run_code call's code-run span", async () => {
    const { provider, spans } = recording();
    const cm = codeMode({ tools: [lookup], environment: isolateEnvironment() });
    try {
      const d = new Dispatcher(new Toolset([cm.tool]), {
        tracing: { tracerProvider: provider },
        retryDelay: 1,
      });
      const code = `const a = await tools.lookup({ key: "x" }); const b = await tools.lookup({ key: "y" }); return [a, b];`;
      const [result] = await d.dispatch([{ id: "rc1", name: "run_code", arguments: { code } }]).results();
      expect(result!.ok).toBe(true);

      const all = spans();
      const runCall = byName(all, "execute_tool run_code")[0]!;
      const runAttempt = byName(all, "cordon.attempt").find((s) => parentOf(s, all) === runCall)!;
      const run = byName(all, "cordon.code_run")[0]!;
      expect(parentOf(run, all)).toBe(runAttempt);
      expect(run.attributes).toMatchObject({
        "cordon.code_run.status": "ok",
        "cordon.code_run.tool_calls": 2,
      });
      expect(run.attributes["cordon.code_run.code"]).toBeUndefined();

      const nested = byName(all, "execute_tool lookup");
      expect(nested).toHaveLength(2);
      for (const call of nested) {
        expect(parentOf(call, all)).toBe(run);
        expect(call.attributes["cordon.parent_call_id"]).toBe("rc1");
        expect(call.spanContext().traceId).toBe(runCall.spanContext().traceId);
      }
      // One dispatch span: the nested calls belong to the run_code call's turn.
      expect(byName(all, "cordon.dispatch")).toHaveLength(1);
    } finally {
      await cm.close();
    }
  });

  it("a run without a model is a code-run span with its calls' dispatches under it", async () => {
    const { provider, spans } = recording();
    const dispatcher = new Dispatcher(new Toolset([lookup]), {
      tracing: { tracerProvider: provider },
      retryDelay: 1,
    });
    const cm = codeMode({ tools: [lookup], dispatcher, environment: isolateEnvironment() });
    try {
      const result = await cm.run(`await tools.lookup({ key: "k" }); throw new Error("boom");`);
      expect(result.status).toBe("error");
      const all = spans();
      const run = byName(all, "cordon.code_run")[0]!;
      expect(run.status.code).toBe(2);
      expect(run.attributes["error.type"]).toBe("Error");
      const dispatch = byName(all, "cordon.dispatch")[0]!;
      expect(parentOf(dispatch, all)).toBe(run);
      expect(parentOf(byName(all, "execute_tool lookup")[0]!, all)).toBe(dispatch);
    } finally {
      await cm.close();
    }
  });

  it("a run opened with its code owns its span: the dispatcher alone starts it, end() ends it once", async () => {
    const { provider, spans } = recording();
    const d = new Dispatcher(new Toolset([lookup]), { tracing: { tracerProvider: provider } });
    const run = d.openRun({ callId: "direct-1", code: "await tools.lookup({ key: 'k' })" });
    await d.runCall({ id: "direct-1.1", name: "lookup", arguments: { key: "k" } }, { parent: run.context });
    run.close();
    expect(byName(spans(), "cordon.code_run")).toEqual([]);
    const summary = { status: "timeout", calls: [1], logs: [], error: { name: "Timeout", message: "late" } };
    run.end(summary);
    run.end({ status: "ok", calls: [], logs: [] });

    const all = spans();
    const [codeRun, ...more] = byName(all, "cordon.code_run");
    expect(more).toEqual([]);
    expect(codeRun!.attributes).toMatchObject({
      "cordon.code_run.status": "timeout",
      "cordon.code_run.tool_calls": 1,
      "error.type": "Timeout",
    });
    const dispatch = byName(all, "cordon.dispatch")[0]!;
    expect(parentOf(dispatch, all)).toBe(codeRun);
    expect(parentOf(byName(all, "execute_tool lookup")[0]!, all)).toBe(dispatch);
  });

  it("a run opened without code has no code-run span, and its end() does nothing", async () => {
    const { provider, spans } = recording();
    const d = new Dispatcher(new Toolset([lookup]), { tracing: { tracerProvider: provider } });
    const run = d.openRun({ callId: "plain-1" });
    await d.runCall({ id: "plain-1.1", name: "lookup", arguments: { key: "k" } }, { parent: run.context });
    run.close();
    run.end({ status: "ok", calls: [], logs: [] });
    const all = spans();
    expect(byName(all, "cordon.code_run")).toEqual([]);
    expect(parentOf(byName(all, "cordon.dispatch")[0]!, all)).toBeUndefined();
  });

  it("a run that ends on its own is not recorded as cancelled", async () => {
    const { provider, spans } = recording();
    const dispatcher = new Dispatcher(new Toolset([lookup]), { tracing: { tracerProvider: provider } });
    const cm = codeMode({ tools: [lookup], dispatcher, environment: isolateEnvironment() });
    try {
      const result = await cm.run(`await tools.lookup({ key: "k" }); 1`);
      expect(result.status).toBe("ok");
      const dispatch = byName(spans(), "cordon.dispatch")[0]!;
      expect(dispatch.attributes["cordon.dispatch.stopped"]).toBeUndefined();
    } finally {
      await cm.close();
    }
  });

  it("uses the global tracer provider when one is registered", async () => {
    const { provider, spans } = recording();
    trace.setGlobalTracerProvider(provider);
    await new Dispatcher(new Toolset([lookup]))
      .dispatch([{ id: "g1", name: "lookup", arguments: { key: "a" } }])
      .results();
    expect(byName(spans(), "execute_tool lookup")).toHaveLength(1);
  });

  it("a dispatch whose span does not record starts no other span", async () => {
    let started = 0;
    const sampledOut = new BasicTracerProvider({ sampler: new AlwaysOffSampler() });
    const counting = {
      getTracer(name: string): Tracer {
        const tracer = sampledOut.getTracer(name);
        return {
          startSpan: (...args: Parameters<Tracer["startSpan"]>) => {
            started++;
            return tracer.startSpan(...args);
          },
          startActiveSpan: tracer.startActiveSpan.bind(tracer),
        };
      },
    };
    const d = new Dispatcher(new Toolset([lookup, flaky()]), {
      tracing: { tracerProvider: counting },
      retryDelay: 1,
    });
    const results = await d
      .dispatch([
        { id: "c1", name: "lookup", arguments: { key: "a" } },
        { id: "c2", name: "flaky", arguments: {} },
      ])
      .results();
    expect(results.every((r) => r.ok)).toBe(true);
    expect(started).toBe(1);
  });

  it("tracing: false records nothing even with a global provider", async () => {
    const { provider, spans } = recording();
    trace.setGlobalTracerProvider(provider);
    await new Dispatcher(new Toolset([lookup]), { tracing: false })
      .dispatch([{ id: "g1", name: "lookup", arguments: { key: "a" } }])
      .results();
    expect(spans()).toEqual([]);
  });

  it("an application that registered nothing with OpenTelemetry never loads its API, and one that does is traced", async () => {
    // A process of its own: this one has loaded the API and registered providers already.
    const script = `
      import { createRequire } from "node:module";
      import { z } from "zod";
      import { Dispatcher, Toolset, tool } from "./src/index.ts";
      const echo = tool({ name: "echo", description: "Echo.", input: z.object({ n: z.number() }), run: ({ n }) => n });
      const dispatcher = new Dispatcher(new Toolset([echo]));
      const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((f) => f.includes("@opentelemetry/api"));
      const first = await dispatcher.dispatch([{ id: "a", name: "echo", arguments: { n: 1 } }]).results();
      const before = loaded();
      const { trace } = await import("@opentelemetry/api");
      const { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } = await import("@opentelemetry/sdk-trace-base");
      const exporter = new InMemorySpanExporter();
      trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
      const second = await dispatcher.dispatch([{ id: "b", name: "echo", arguments: { n: 2 } }]).results();
      console.log(JSON.stringify({ values: [first[0].value, second[0].value], before, spans: exporter.getFinishedSpans().map((s) => s.name).sort() }));
    `;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["--import", "tsx", "--input-type=module", "-e", script],
      { cwd: resolve(import.meta.dirname, "../.."), timeout: 30_000 },
    );
    expect(JSON.parse(stdout)).toEqual({
      values: [1, 2],
      before: false,
      spans: ["cordon.attempt", "cordon.dispatch", "execute_tool echo"],
    });
  });
});
