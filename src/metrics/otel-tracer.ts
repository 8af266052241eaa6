/**
 * The OpenTelemetry side of tracing.ts, in its own module so that only a run
 * with an OTLP endpoint imports the SDK. The exporter takes its endpoint,
 * headers and timeout from the standard OTEL_EXPORTER_OTLP_* variables and
 * sends OTLP/HTTP JSON. No global provider is registered: the spans are
 * ferry's own, started from a tracer this module holds.
 */
import { context, SpanStatusCode, trace } from '@opentelemetry/api';
import type { Attributes, Context, Span, Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { Logger } from 'pino';
import { redact } from '../sdk/redact.js';
import type { RunCounts } from '../state/index.js';
import type { RunTracer, SyncTrace } from './tracing.js';

const COUNTS: readonly (keyof RunCounts)[] = ['read', 'pushed', 'created', 'updated', 'unchanged', 'skipped', 'failed', 'deleted', 'duplicates'];

/** `ferry.records.<outcome>` attributes; `since` makes them the change over an interval. */
function countAttributes(counts: Readonly<RunCounts>, since?: Readonly<RunCounts>): Attributes {
  const out: Attributes = {};
  for (const key of COUNTS) out[`ferry.records.${key}`] = (counts[key] ?? 0) - (since?.[key] ?? 0);
  return out;
}

export function startRunTracer(name: string, attributes: Attributes, logger: Logger): RunTracer {
  const provider = new BasicTracerProvider({
    // OTEL_SERVICE_NAME / OTEL_RESOURCE_ATTRIBUTES still apply: the provider merges them over this.
    resource: resourceFromAttributes({ 'service.name': process.env.OTEL_SERVICE_NAME ?? 'ferry' }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  const tracer = provider.getTracer('ferry');
  const root = tracer.startSpan(name, { attributes });
  const parent = trace.setSpan(context.active(), root);
  return {
    sync: (sync) => startSyncTrace(tracer, parent, sync),
    async shutdown(status) {
      root.setAttribute('ferry.status', status);
      if (status === 'failed') root.setStatus({ code: SpanStatusCode.ERROR });
      root.end();
      // Flushes the batch processor; the exporter gives up after OTEL_EXPORTER_OTLP_TIMEOUT (10 s).
      // A collector that is down costs the traces, not the run's outcome.
      try {
        await provider.shutdown();
      } catch (error) {
        const reason = redact(error instanceof Error ? error.message : String(error));
        logger.error({ err: { message: reason } }, `traces not sent to the OTLP endpoint: ${reason}; check OTEL_EXPORTER_OTLP_ENDPOINT and that the collector is up`);
      }
    },
  };
}

function startSyncTrace(tracer: Tracer, parent: Context, sync: string): SyncTrace {
  const span: Span = tracer.startSpan('ferry sync', { attributes: { 'ferry.sync': sync } }, parent);
  const inSync = trace.setSpan(parent, span);
  let lastCounts: RunCounts | undefined;
  let lastTime = Date.now();
  let intervals = 0;
  return {
    onCheckpoint(counts) {
      const now = Date.now();
      const interval = tracer.startSpan('ferry checkpoint', { startTime: lastTime, attributes: { 'ferry.sync': sync, 'ferry.checkpoint': ++intervals, ...countAttributes(counts, lastCounts) } }, inSync);
      interval.end(now);
      lastCounts = { ...counts };
      lastTime = now;
    },
    end(outcome) {
      span.setAttributes({ 'ferry.status': outcome.status, ...countAttributes(outcome.counts), ...(outcome.runId ? { 'ferry.run_id': outcome.runId } : {}) });
      if (outcome.status === 'failed') span.setStatus({ code: SpanStatusCode.ERROR, ...(outcome.error ? { message: redact(outcome.error) } : {}) });
      span.end();
    },
  };
}
