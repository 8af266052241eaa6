/**
 * /v1/ask-assistant: a run is answered when created and becomes terminal
 * after `askDelayMs`; each request waits up to `askWaitMs` for that, then
 * answers 200 (terminal) or 202 (still running) with Location and Retry-After.
 */
import { randomUUID } from 'node:crypto';
import { answerQuestion } from '../ask/answer.js';
import { notFound } from '../http/errors.js';
import type { Handler, HandlerResult, RequestContext } from '../http/context.js';
import type { AskRunEntity } from '../store/types.js';
import { isUuid } from './shared.js';

function envelope(run: AskRunEntity) {
  const base = { threadId: run.threadId, runId: run.runId, status: run.status };
  if (run.status === 'completed') return { ...base, output: run.output ?? '', generatedAt: run.readyMs };
  if (run.status === 'failed' || run.status === 'stopped') return run.error ? { ...base, error: run.error } : base;
  return base;
}

/**
 * Wait until the run is terminal or the wait window (`askWaitMs` from the
 * request's start) has passed, re-reading the run after every timer: a timer
 * may fire a moment before the run's ready time, and the spec gives 200 to
 * every run that ends inside the window, so one early wake-up must not turn
 * into a 202.
 */
async function waitForRun(ctx: RequestContext, run: AskRunEntity, startedMs: number): Promise<HandlerResult> {
  const deadline = startedMs + ctx.app.config.askWaitMs;
  let current = run;
  while (current.status === 'running') {
    const now = Date.now();
    if (now >= deadline || ctx.aborted() || ctx.app.closing) break;
    await ctx.app.sleep(Math.max(1, Math.min(current.readyMs, deadline) - now));
    current = ctx.app.store.askRuns.find(ctx.principal.orgId, run.threadId, run.runId) ?? current;
  }
  if (current.status !== 'running') return { status: 200, body: envelope(current) };
  return {
    status: 202,
    body: envelope(current),
    headers: { location: `/v1/ask-assistant/${current.threadId}/${current.runId}`, 'retry-after': '5' },
  };
}

export const ask: Handler<'ask'> = (ctx) => {
  const now = Date.now();
  const outcome = answerQuestion(ctx.app.store.search, ctx.principal.orgId, ctx.body.message);
  const run = ctx.app.store.askRuns.create({
    runId: randomUUID(),
    threadId: randomUUID(),
    orgId: ctx.principal.orgId,
    message: ctx.body.message,
    finalStatus: outcome.status,
    output: outcome.status === 'completed' ? outcome.output : null,
    error: outcome.status === 'failed' ? outcome.error : null,
    createdMs: now,
    readyMs: now + ctx.app.config.askDelayMs,
  });
  return waitForRun(ctx, run, now);
};

export const pollAsk: Handler<'pollAsk'> = (ctx) => {
  const startedMs = Date.now();
  const { threadId = '', runId = '' } = ctx.params;
  const run = isUuid(threadId) && isUuid(runId) ? ctx.app.store.askRuns.find(ctx.principal.orgId, threadId, runId) : undefined;
  if (!run) throw notFound(`ask run ${threadId}/${runId} not found`);
  return waitForRun(ctx, run, startedMs);
};
