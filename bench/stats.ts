// Small helpers shared by the benchmarks: timing loops and figures.

/** Runs `fn` `n` times and returns each run's duration in microseconds. */
export async function sample(n: number, fn: () => unknown): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = process.hrtime.bigint();
    await fn();
    out.push(Number(process.hrtime.bigint() - start) / 1_000);
  }
  return out;
}

/** The median of a list of numbers. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Formats a number with a unit, to 1 decimal for small values. */
export function fmt(value: number, unit: string): string {
  return `${value < 100 ? value.toFixed(1) : Math.round(value).toLocaleString("en-US")} ${unit}`;
}
