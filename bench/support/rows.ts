/** What a row group's run() returns: one figure per row, with the goal the issue sets, if any. */
export interface BenchRow {
  name: string;
  value: number | string;
  /** What the issue asks for, as text (`≥ 0.8`). */
  goal?: string;
  ok?: boolean;
}

/** Does `value` meet a goal written as `≥ x`, `≤ x` or `= x`? */
export function meets(value: number, goal: string): boolean {
  const [op, text] = goal.split(' ');
  const target = Number(text);
  return op === '≥' ? value >= target : op === '≤' ? value <= target : value === target;
}

/** Each row with a numeric value and a goal, judged. */
export function judged<T extends BenchRow>(rows: readonly T[]): T[] {
  return rows.map((row) => ({ ...row, ...(row.goal && typeof row.value === 'number' ? { ok: meets(row.value, row.goal) } : {}) }));
}

export const ratio = (a: number, b: number): number => +(a / b).toFixed(3);
export const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
