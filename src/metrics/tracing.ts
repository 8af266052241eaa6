/**
 * OpenTelemetry traces of `ferry run` and of worker jobs: a span per run, per
 * sync and per checkpoint interval (the pusher has no batches: records go out
 * one request each, so the unit of progress a trace can show is the stretch
 * between two checkpoints). Tracing is on when the standard OTLP endpoint
 * variables are set; the OpenTelemetry SDK is imported only then, so a run
 * without them loads none of it and pays nothing per record.
 */
import type { Logger } from 'pino';
import type { RunCounts } from '../state/index.js';

/** A run's tracer; every span it starts is exported by {@link RunTracer.shutdown}. */
export interface RunTracer {
  /** The span of one sync (or one slice of a partitioned sync), a child of the run's span. */
  sync(name: string): SyncTrace;
  /** Ends the run's span with its status and sends every span; also after a failed run. Never throws: a failed export is logged. */
  shutdown(status: string): Promise<void>;
}

/** The span of one sync while it runs. */
export interface SyncTrace {
  /** A checkpoint was written: closes the interval since the last one as a child span. */
  onCheckpoint(counts: Readonly<RunCounts>): void;
  /** Ends the span with the run's outcome (`error`: a message shown on the span, redacted first). */
  end(outcome: { status: string; counts: Readonly<RunCounts>; runId: string | null; error?: string }): void;
}

/** The OTLP traces endpoint configured in the environment, if any (the exporter reads the same variables). */
export function tracesEndpoint(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.OTEL_SDK_DISABLED?.toLowerCase() === 'true' || env.OTEL_TRACES_EXPORTER === 'none') return undefined;
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT;
  return endpoint ? endpoint : undefined;
}

/**
 * The tracer of a run (`span` names the root span: `ferry run`, `ferry job`),
 * or undefined when no endpoint is configured. Error messages put on spans or
 * logged go through the SDK redactor (src/sdk/redact.ts), which knows the
 * API key and every other secret the config loader registered.
 */
export async function runTracerFor(span: string, attributes: Record<string, string | number>, logger: Logger): Promise<RunTracer | undefined> {
  if (tracesEndpoint() === undefined) return undefined;
  const { startRunTracer } = await import('./otel-tracer.js');
  return startRunTracer(span, attributes, logger);
}
