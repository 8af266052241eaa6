/** Assertions for zod schemas: accepted values return their parsed form; rejections name the path. */
import { expect } from 'vitest';
import type { z } from 'zod';

export function accepts<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) {
    throw new Error(`expected the value to be accepted, got: ${result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  }
  return result.data;
}

/** Assert rejection with an issue at `path` (dot notation, `''` for the root) whose message matches `message`. */
export function rejects(schema: z.ZodType, value: unknown, path: string, message?: RegExp): void {
  const result = schema.safeParse(value);
  expect(result.success, `expected rejection at "${path}"`).toBe(false);
  const issues = result.error?.issues ?? [];
  const atPath = issues.filter((i) => i.path.map(String).join('.') === path);
  expect(atPath, `issues: ${JSON.stringify(issues.map((i) => [i.path.join('.'), i.message]))}`).not.toHaveLength(0);
  if (message) expect(atPath.map((i) => i.message).join(' | ')).toMatch(message);
}
