/**
 * `schedule:` values: cron expressions as the worker's queue (pg-boss) reads
 * them, checked when the config loads so a typo fails `ferry check`, not a
 * worker at 3 a.m.
 */
import { createRequire } from 'node:module';
import type CronParser from 'cron-parser';
import { z } from 'zod';

/**
 * The cron parser, loaded at the first schedule: a run of a config without
 * one does not pay for loading it and luxon (CommonJS, so a synchronous require).
 */
export function cronParser(): typeof CronParser {
  return createRequire(import.meta.url)('cron-parser') as typeof CronParser;
}

/** The parser's complaint about `expression`, or undefined when it is a valid cron expression. */
export function cronProblem(expression: string): string | undefined {
  try {
    cronParser().parseExpression(expression, { tz: 'UTC' });
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

export const cronSchedule = z
  .string()
  .min(1)
  .superRefine((value, ctx) => {
    const problem = cronProblem(value);
    if (problem !== undefined) ctx.addIssue({ code: 'custom', message: `not a cron expression (${problem}); e.g. "*/15 * * * *"` });
  })
  .describe('Cron expression (UTC) on which `ferry worker` queues a run, e.g. "*/15 * * * *".');
