// A run that may pause records what the clock and Math.random handed out, and the time zone and locale its
// code sees; its resumption replays those values, in order, and live ones after them, and reports its zone.
import { afterAll, describe, expect, it } from "vitest";
import { isolateEnvironment } from "../../environments/in-process/index.js";
import { sandboxHostEnvironment } from "../../environments/sandbox-host/index.js";
import type {
  Environment,
  ExecutionRequest,
  RecordedValues,
  SandboxBridge,
} from "../../sandbox/contract/index.js";

const environments: [string, Environment][] = [
  ["in-process isolate", isolateEnvironment()],
  ["sandbox host (over the wire)", sandboxHostEnvironment({ processes: 1 })],
];
afterAll(() => Promise.all(environments.map(([, environment]) => environment.close())));

const limits = {
  timeoutMs: 5_000,
  cpuTimeMs: 5_000,
  memoryMb: 64,
  maxLogChars: 10_000,
  maxResultChars: 100_000,
};
const CODE = `
  const a = Date.now();
  const b = Math.random();
  console.log("between");
  const c = new Date().getTime();
  const d = Date();
  const e = new Intl.DateTimeFormat("en", { timeZone: "UTC", hour: "numeric", minute: "numeric", second: "numeric", fractionalSecondDigits: 3 }).format();
  const f = new Intl.DateTimeFormat("en", { timeZone: "UTC", second: "numeric", fractionalSecondDigits: 3 }).formatToParts().map((p) => p.value).join("");
  return [a, b, c, d, e, f, Math.random(), new Date(0).getTime(), new (new Date().constructor)().getTime()];
`;

async function runOnce(environment: Environment, request: Partial<ExecutionRequest>) {
  const records: RecordedValues[] = [];
  const bridge: SandboxBridge = {
    callTool: () => ({ ok: true, valueJson: "null" }),
    log: () => {},
    record: (values) => records.push(values),
  };
  const sandbox = await environment.open(limits);
  try {
    const outcome = await sandbox.execute(
      { code: CODE, toolNames: {}, limits, final: true, ...request },
      bridge,
      new AbortController().signal,
    );
    return { value: JSON.parse(outcome.valueJson ?? "null") as unknown[], records };
  } finally {
    await sandbox.dispose();
  }
}

function merged(records: RecordedValues[]): RecordedValues {
  return {
    now: records.flatMap((record) => record.now ?? []),
    random: records.flatMap((record) => record.random ?? []),
  };
}

describe.each(environments)("[%s] time and randomness in a run that may pause", (_name, environment) => {
  it("a recording run reports every value handed out, before the message that follows it", async () => {
    const { records, value } = await runOnce(environment, { record: true });
    // The first values went out before the console line, with the zone; the rest before the end.
    expect(records.length).toBe(2);
    expect(records[0]).toEqual({ now: [value[0]], random: [value[1]], zone: expect.any(Object) });
    expect(records[1]?.zone).toBeUndefined();
    // Date.now, new Date(), Date(), format(), formatToParts(), and two new Date() in the last element.
    expect(merged(records).now).toHaveLength(7);
    expect(merged(records).random).toEqual([value[1], value[6]]);
  });

  it("a replayed run sees the same time and random numbers, whatever the clock says now", async () => {
    const first = await runOnce(environment, { record: true });
    await new Promise((resolve) => setTimeout(resolve, 30));
    const again = await runOnce(environment, { replay: merged(first.records) });
    expect(again.value).toEqual(first.value);
    // A run that only replays records nothing: it reports the zone its code sees, to be checked.
    expect(again.records).toEqual([{ zone: first.records[0]?.zone }]);
  });

  it("the zone reported is the one the code sees, read before the code runs: code that fakes Intl's answer does not change it", async () => {
    const sandbox = await environment.open(limits);
    const records: RecordedValues[] = [];
    try {
      const outcome = await sandbox.execute(
        {
          code: `
            const real = Intl.DateTimeFormat().resolvedOptions();
            Intl.DateTimeFormat.prototype.resolvedOptions = () => ({ timeZone: "Mars/Olympus_Mons", locale: "tlh" });
            Object.defineProperty(Object.prototype, "timeZone", { get: () => "Mars/Olympus_Mons" });
            console.log("after the fake");
            return [real.timeZone, real.locale];`,
          toolNames: {},
          limits,
          final: true,
          record: true,
        },
        { callTool: () => ({ ok: true, valueJson: "null" }), log: () => {}, record: (v) => records.push(v) },
        new AbortController().signal,
      );
      const [timeZone, locale] = JSON.parse(outcome.valueJson!) as string[];
      expect(records).toEqual([{ zone: { timeZone, locale } }]);
    } finally {
      await sandbox.dispose();
    }
  });

  it("past the replayed values, live ones come again, and are recorded", async () => {
    const first = await runOnce(environment, { record: true });
    const partial = { now: merged(first.records).now!.slice(0, 1), random: [] };
    const again = await runOnce(environment, { replay: partial, record: true });
    expect(again.value[0]).toBe(first.value[0]);
    expect(again.value[1]).not.toBe(first.value[1]);
    expect(merged(again.records).random).toEqual([again.value[1], again.value[6]]);
  });

  it("a run that neither records nor replays sees live values and reports none, not even its zone", async () => {
    const { records, value } = await runOnce(environment, {});
    expect(records).toEqual([]);
    expect(value[7]).toBe(0);
    expect(Math.abs((value[0] as number) - Date.now())).toBeLessThan(5_000);
  });

  it("the code cannot reach the tape: Date and Math.random are wrappers whose originals stay out of reach", async () => {
    const sandbox = await environment.open(limits);
    try {
      const outcome = await sandbox.execute(
        {
          code: `return [Date === Date.prototype.constructor, new Date() instanceof Date, typeof Date.now, Date.now.toString().includes("native") || Date.now.name, Object.getOwnPropertyNames(Date).sort().join(","), Math.random.length];`,
          toolNames: {},
          limits,
          final: true,
          replay: { now: [5], random: [0.5] },
        },
        { callTool: () => ({ ok: true, valueJson: "null" }), log: () => {} },
        new AbortController().signal,
      );
      const [same, instance, kind, name, statics] = JSON.parse(outcome.valueJson!) as unknown[];
      expect([same, instance, kind, name]).toEqual([true, true, "function", "now"]);
      expect(statics).toBe("UTC,length,name,now,parse,prototype");
    } finally {
      await sandbox.dispose();
    }
  });
});
