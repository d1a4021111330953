// Latency statistics for the benchmarks: quantiles over samples in ms and a fixed-width table row.
// Prints only; nothing here judges a number.

/** p50, p99 and max of a set of samples (ms), with how many there were. */
export interface LatencySummary {
  count: number;
  p50: number;
  p99: number;
  max: number;
}

/** The `q` quantile (nearest rank, 0 ≤ q ≤ 1) of `values`; NaN when there are none. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/** Summarises latency samples in ms. */
export function summarise(values: readonly number[]): LatencySummary {
  return {
    count: values.length,
    p50: quantile(values, 0.5),
    p99: quantile(values, 0.99),
    max: values.length === 0 ? Number.NaN : Math.max(...values),
  };
}

/** A number of ms with 3 significant-ish decimals for small values. */
export function ms(value: number): string {
  if (!Number.isFinite(value)) return '—';
  return value < 10 ? value.toFixed(3) : value.toFixed(1);
}

/** Width of the label column. */
export const LABEL = 54;

/** One row of the latency table: label, count, p50, p99, max (ms). */
export function latencyRow(label: string, s: LatencySummary, tail = ''): string {
  const cells = [s.count.toString().padStart(5), ms(s.p50).padStart(9), ms(s.p99).padStart(9), ms(s.max).padStart(9)];
  return `${label.padEnd(LABEL)} ${cells.join(' ')}${tail ? `  ${tail}` : ''}`;
}

/** The header matching {@link latencyRow}. */
export function latencyHeader(): string {
  const cells = ['n'.padStart(5), 'p50 ms'.padStart(9), 'p99 ms'.padStart(9), 'max ms'.padStart(9)];
  return `${''.padEnd(LABEL)} ${cells.join(' ')}`;
}

/** `a / b` as "12.3×" (— when either is not a positive number). */
export function ratio(a: number, b: number): string {
  return Number.isFinite(a) && Number.isFinite(b) && b > 0 ? `${(a / b).toFixed(1)}×` : '—';
}

/** Resolves after `ms` of real time (the bench paces its sends; never used to wait for a result). */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}

/** Runs `send(i)` for i = 0..count-1 at a steady pace: the i-th at start + i × intervalMs (never bunched up). */
export async function paced(
  count: number,
  intervalMs: number,
  send: (i: number) => void | Promise<void>,
): Promise<void> {
  const start = performance.now();
  for (let i = 0; i < count; i++) {
    await sleep(start + i * intervalMs - performance.now());
    await send(i);
  }
}
