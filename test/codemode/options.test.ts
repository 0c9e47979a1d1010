/**
 * `codeMode()`'s options resolved without any environment: defaults, the groups, the old flat names as
 * aliases of their groups' fields, conflicts between the two, unknown names, and the tools given once.
 */

import { describe, expect, it } from "vitest";
import { z } from "zod";
import { DEPRECATED_OPTION_NAMES } from "../../src/codemode/option-aliases.js";
import type { CodeModeOptions } from "../../src/codemode/options.js";
import { DEFAULT_CHECKPOINT_TTL_MS } from "../../src/codemode/pause/checkpoint.js";
import { PROCESS_CLAIMS } from "../../src/codemode/pause/pause.js";
import {
  CODE_MODE_OPTION_NAMES,
  DEFAULT_INLINE_BUDGET,
  resolveCodeModeOptions,
} from "../../src/codemode/resolve-options.js";
import { DEFAULT_TYPECHECK_WORKERS } from "../../src/codemode/typecheck/limits.js";
import { resolveTypeScriptFromCordon } from "../../src/codemode/typecheck/resolve-typescript.js";
import {
  DEFAULT_CODE_MODE_LIMITS,
  DEFAULT_TYPECHECK_LIMITS,
  Dispatcher,
  memoryCheckpointStore,
  ObservedTypes,
  Toolset,
  tool,
  UserError,
} from "../../src/index.js";

const KEY = "a host's secret of thirty-two bytes";

function lookup(name = "lookup") {
  return tool({
    name,
    description: "Look a key up.",
    input: z.object({ key: z.string() }),
    run: ({ key }) => key,
  });
}

const tools = new Toolset([lookup()]);

describe("the resolved options", () => {
  it("fills in every default from the tools alone", () => {
    const resolved = resolveCodeModeOptions({ tools });
    expect(resolved).toEqual({
      toolset: tools,
      dispatcher: undefined,
      environment: undefined,
      name: "run_code",
      limits: { ...DEFAULT_CODE_MODE_LIMITS },
      state: "fresh",
      sessions: { idleMs: 10 * 60_000, max: 16 },
      approval: "wait",
      pause: undefined,
      typecheck: {
        mode: "off",
        limits: DEFAULT_TYPECHECK_LIMITS,
        workers: DEFAULT_TYPECHECK_WORKERS,
        clientOf: undefined,
        resolveTypeScript: resolveTypeScriptFromCordon,
      },
      discovery: { mode: "auto", inlineBudget: DEFAULT_INLINE_BUDGET, declarationsIn: "tool" },
      observe: { results: true, store: undefined },
      journal: undefined,
    });
  });

  it("has at most 14 top-level options (flows the 14th), and every old name moved into one of them", () => {
    expect(CODE_MODE_OPTION_NAMES.length).toBeLessThanOrEqual(14);
    for (const { group } of DEPRECATED_OPTION_NAMES) expect(CODE_MODE_OPTION_NAMES).toContain(group);
  });

  it("takes each group's settings", () => {
    const store = memoryCheckpointStore();
    const observed = new ObservedTypes();
    const onCheckpointUsed = () => true;
    const clientOf = () => "client";
    const resolveTypeScript = () => "/somewhere/typescript.js";
    const resolved = resolveCodeModeOptions({
      tools,
      state: "session",
      sessions: { idleMs: 5_000, max: 3 },
      pause: { key: KEY, ttlMs: 60_000, store, onCheckpointUsed },
      typecheck: { mode: "report", limits: { timeMs: 500 }, workers: 2, clientOf, resolveTypeScript },
      discovery: { mode: "search", inlineBudget: 500, declarationsIn: "instructions" },
      observe: { results: false, store: observed },
    });
    expect(resolved.sessions).toEqual({ idleMs: 5_000, max: 3 });
    expect(resolved.pause).toEqual({
      key: Buffer.from(KEY),
      ttlMs: 60_000,
      store,
      claims: store,
      onCheckpointUsed,
    });
    expect(resolved.typecheck).toEqual({
      mode: "report",
      limits: { ...DEFAULT_TYPECHECK_LIMITS, timeMs: 500 },
      workers: 2,
      clientOf,
      resolveTypeScript,
    });
    expect(resolved.discovery).toEqual({ mode: "search", inlineBudget: 500, declarationsIn: "instructions" });
    expect(resolved.observe).toEqual({ results: false, store: observed });
  });

  it("takes a mode alone for typecheck and discovery, and a key alone for pause", () => {
    const resolved = resolveCodeModeOptions({
      tools,
      typecheck: "block",
      discovery: "inline",
      pause: { key: KEY },
    });
    expect(resolved.typecheck.mode).toBe("block");
    expect(resolved.discovery.mode).toBe("inline");
    expect(resolved.pause).toMatchObject({
      ttlMs: DEFAULT_CHECKPOINT_TTL_MS,
      store: undefined,
      claims: PROCESS_CLAIMS,
    });
  });

  it("refuses bad values with the option's grouped name and what it takes", () => {
    const refused = (options: Partial<CodeModeOptions>) => () =>
      resolveCodeModeOptions({ tools, ...options });
    expect(refused({ sessions: { max: 0 } })).toThrow(
      new UserError("codeMode: sessions.max must be a whole number, at least 1, got 0."),
    );
    expect(refused({ sessions: { idleMs: 1.5 } })).toThrow(/sessions.idleMs must be a whole number/);
    expect(refused({ pause: { key: "short" } })).toThrow(
      /^codeMode: pause.key: a checkpoint key must be a secret of at least 16 bytes/,
    );
    expect(refused({ pause: { key: KEY, ttlMs: 0 } })).toThrow(
      "codeMode: pause.ttlMs must be a number of ms > 0, got 0.",
    );
    expect(refused({ typecheck: { mode: "strict" as "block" } })).toThrow(
      'codeMode: typecheck.mode must be "block", "report" or "off", got "strict".',
    );
    expect(refused({ typecheck: { workers: 2 } as never })).toThrow(/typecheck.mode must be/);
    expect(refused({ discovery: { mode: "lazy" as "auto" } })).toThrow(
      'codeMode: discovery.mode must be "auto", "inline" or "search", got "lazy".',
    );
    expect(refused({ observe: { results: 1 as unknown as boolean } })).toThrow(
      /observe.results must be true or false/,
    );
    expect(refused({ pause: "secret" as never })).toThrow('codeMode: pause must be an object, got "secret".');
  });

  it("refuses an option it does not know, top-level or in a group, listing the known ones", () => {
    expect(() => resolveCodeModeOptions({ tools, checkpointkey: KEY } as CodeModeOptions)).toThrow(
      new UserError(`codeMode: unknown option "checkpointkey". Known: ${CODE_MODE_OPTION_NAMES.join(", ")}.`),
    );
    expect(() =>
      resolveCodeModeOptions({
        tools,
        pause: { key: KEY, checkpointStore: memoryCheckpointStore() } as never,
      }),
    ).toThrow(
      'codeMode: pause: unknown option "checkpointStore". Known: key, ttlMs, store, onCheckpointUsed.',
    );
  });

  it('refuses approval "pause" without pause.key, and with sessions', () => {
    expect(() => resolveCodeModeOptions({ tools, approval: "pause" })).toThrow(
      /approval "pause" needs pause.key/,
    );
    expect(() =>
      resolveCodeModeOptions({ tools, approval: "pause", pause: { key: KEY }, state: "session" }),
    ).toThrow(/does not work with state "session"/);
  });
});

describe("the old flat names, kept for one minor version", () => {
  const store = memoryCheckpointStore();
  const observed = new ObservedTypes();
  const onCheckpointUsed = () => true;
  const clientOf = () => "client";
  const resolveTypeScript = () => "/somewhere/typescript.js";
  /** A value each old name may take, different from the default, and the options that are the same with the new name. */
  const samples: Record<
    (typeof DEPRECATED_OPTION_NAMES)[number]["old"],
    [unknown, Partial<CodeModeOptions>]
  > = {
    sessionIdleMs: [5_000, { sessions: { idleMs: 5_000 } }],
    maxSessions: [3, { sessions: { max: 3 } }],
    checkpointKey: [KEY, { pause: { key: KEY } }],
    checkpointTtlMs: [60_000, { pause: { key: KEY, ttlMs: 60_000 } }],
    checkpointStore: [store, { pause: { key: KEY, store } }],
    onCheckpointUsed: [onCheckpointUsed, { pause: { key: KEY, onCheckpointUsed } }],
    typecheckLimits: [{ timeMs: 500 }, { typecheck: { mode: "off", limits: { timeMs: 500 } } }],
    typecheckWorkers: [3, { typecheck: { mode: "off", workers: 3 } }],
    clientOf: [clientOf, { typecheck: { mode: "off", clientOf } }],
    resolveTypeScript: [resolveTypeScript, { typecheck: { mode: "off", resolveTypeScript } }],
    inlineBudget: [500, { discovery: { inlineBudget: 500 } }],
    declarationsIn: ["instructions", { discovery: { declarationsIn: "instructions" } }],
    observeResults: [false, { observe: { results: false } }],
    observedTypes: [observed, { observe: { store: observed } }],
  };
  /** What the pause aliases other than the key need beside them: the key, under its old name. */
  const besides = (old: string): Partial<CodeModeOptions> =>
    ["checkpointTtlMs", "checkpointStore", "onCheckpointUsed"].includes(old) ? { checkpointKey: KEY } : {};

  it.each(DEPRECATED_OPTION_NAMES.map(({ old, group, field }) => [old, `${group}.${field}`]))(
    "%s resolves as %s does",
    (old) => {
      const [value, grouped] = samples[old as keyof typeof samples];
      const byOldName = resolveCodeModeOptions({ tools, ...besides(old), [old]: value });
      const byNewName = resolveCodeModeOptions({ tools, ...grouped });
      expect(byOldName).toEqual(byNewName);
      // And it is not the default: the alias is really taken.
      expect(byNewName).not.toEqual(resolveCodeModeOptions({ tools }));
    },
  );

  it("adds to a group given by its mode alone, and to one given as an object", () => {
    expect(
      resolveCodeModeOptions({ tools, typecheck: "block", typecheckWorkers: 2 }).typecheck,
    ).toMatchObject({
      mode: "block",
      workers: 2,
    });
    expect(resolveCodeModeOptions({ tools, discovery: "search", inlineBudget: 300 }).discovery).toMatchObject(
      {
        mode: "search",
        inlineBudget: 300,
      },
    );
    expect(resolveCodeModeOptions({ tools, pause: { key: KEY }, checkpointStore: store }).pause?.store).toBe(
      store,
    );
  });

  it("given with its new place and another value, is refused naming both", () => {
    expect(() =>
      resolveCodeModeOptions({ tools, checkpointKey: KEY, pause: { key: `${KEY}, another` } }),
    ).toThrow(
      new UserError(
        "codeMode: checkpointKey (the old name) and pause.key are both given, with different values: give only pause.key.",
      ),
    );
    expect(() =>
      resolveCodeModeOptions({
        tools,
        typecheckLimits: { timeMs: 1 },
        typecheck: { mode: "block", limits: { timeMs: 2 } },
      }),
    ).toThrow(/typecheckLimits \(the old name\) and typecheck.limits are both given/);
    expect(() => resolveCodeModeOptions({ tools, maxSessions: 2, sessions: { max: 3 } })).toThrow(
      /maxSessions \(the old name\) and sessions.max/,
    );
  });

  it("given with its new place and the same value, is taken", () => {
    expect(resolveCodeModeOptions({ tools, checkpointKey: KEY, pause: { key: KEY } }).pause?.key).toEqual(
      Buffer.from(KEY),
    );
    const limits = resolveCodeModeOptions({
      tools,
      typecheckLimits: { timeMs: 700 },
      typecheck: { mode: "block", limits: { timeMs: 700 } },
    }).typecheck.limits;
    expect(limits.timeMs).toBe(700);
  });
});

describe("tools given once", () => {
  it("tools alone: the code mode makes its dispatcher over them", () => {
    const resolved = resolveCodeModeOptions({ tools: [lookup()] });
    expect(resolved.toolset.names()).toEqual(["lookup"]);
    expect(resolved.dispatcher).toBeUndefined();
  });

  it("a dispatcher alone: its tools are the code mode's", () => {
    const dispatcher = new Dispatcher(new Toolset([lookup()]));
    const resolved = resolveCodeModeOptions({ dispatcher });
    expect(resolved.toolset).toBe(dispatcher.toolset);
    expect(resolved.dispatcher).toBe(dispatcher);
  });

  it("both, the same Toolset or the same tool objects in any order: the dispatcher's tools", () => {
    const [a, b] = [lookup("a"), lookup("b")];
    const toolset = new Toolset([a, b]);
    const dispatcher = new Dispatcher(toolset);
    expect(resolveCodeModeOptions({ tools: toolset, dispatcher }).toolset).toBe(toolset);
    expect(resolveCodeModeOptions({ tools: [b, a], dispatcher }).toolset).toBe(toolset);
    expect(resolveCodeModeOptions({ tools: new Toolset([a, b]), dispatcher }).dispatcher).toBe(dispatcher);
  });

  it("both, with different tools: a UserError naming what differs", () => {
    const [a, b, c] = [lookup("a"), lookup("b"), lookup("c")];
    const dispatcher = new Dispatcher(new Toolset([a, b]));
    expect(() => resolveCodeModeOptions({ tools: [a, c], dispatcher })).toThrow(
      /^codeMode: tools and dispatcher hold different tools \(only in tools: c; only in the dispatcher: b\): /,
    );
    // The same name made twice is another tool: it may have another schema or run.
    expect(() => resolveCodeModeOptions({ tools: [a, lookup("b")], dispatcher })).toThrow(
      /\(another tool object of the same name: b\)/,
    );
    expect(() => resolveCodeModeOptions({ tools: [a], dispatcher })).toThrow(UserError);
  });

  it("neither, or a dispatcher that is not one: a UserError saying what to give", () => {
    expect(() => resolveCodeModeOptions({})).toThrow(
      "codeMode needs the tools the code can call: codeMode({ tools: [getOrder] }), or codeMode({ dispatcher }) for a dispatcher's tools.",
    );
    expect(() => resolveCodeModeOptions({ dispatcher: {} as Dispatcher })).toThrow(
      "codeMode: dispatcher must be a Dispatcher: new Dispatcher(toolset, options).",
    );
  });
});
