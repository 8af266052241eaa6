/**
 * How one-shot runs hand their metrics over when they end: a Prometheus
 * textfile (node_exporter's textfile collector) written atomically, and/or a
 * push to a Pushgateway. A failure here is logged at error level; it does not
 * change the run's outcome, which has already happened.
 */
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { Pushgateway } from 'prom-client';
import { messageOf } from '../sdk/guards.js';
import { redact } from '../sdk/redact.js';
import type { ConnectorLogger } from '../sdk/types.js';
import type { FerryMetrics } from './registry.js';

export interface MetricsExport {
  /** `--metrics-file`: where the textfile goes. */
  file?: string;
  /** `metrics.pushgateway` of ferry.yaml. */
  pushgateway?: string;
  /** @default 'ferry' */
  job?: string;
}

const PUSH_TIMEOUT_MS = 10_000;

/**
 * Write the exposition text to `path` so a reader never sees half a file: a
 * temporary file in the same directory, renamed over the target.
 */
export async function writeMetricsFile(metrics: FerryMetrics, path: string): Promise<void> {
  const text = await metrics.text();
  mkdirSync(dirname(path), { recursive: true });
  // node_exporter's collector reads only *.prom, so the temporary name must not end in .prom.
  const temporary = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  try {
    writeFileSync(temporary, text);
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}

/** Push with POST (pushAdd): metrics this run did not set, like an older last-success time, stay at the gateway. */
export async function pushMetrics(metrics: FerryMetrics, url: string, job: string): Promise<void> {
  const gateway = new Pushgateway(url, { timeout: PUSH_TIMEOUT_MS }, metrics.registry);
  await gateway.pushAdd({ jobName: job });
}

/** Hand the metrics over as configured; logs (never throws) when a target fails. */
export async function exportMetrics(metrics: FerryMetrics, target: MetricsExport, logger: Pick<ConnectorLogger, 'error' | 'debug'>): Promise<void> {
  if (target.file !== undefined) {
    try {
      await writeMetricsFile(metrics, target.file);
      logger.debug({ file: target.file }, 'metrics written');
    } catch (error) {
      logger.error({ file: target.file, err: error }, `could not write the metrics file ${target.file}: check that its directory is writable`);
    }
  }
  if (target.pushgateway !== undefined) {
    const shown = redact(target.pushgateway);
    try {
      await pushMetrics(metrics, target.pushgateway, target.job ?? 'ferry');
      logger.debug({ pushgateway: shown }, 'metrics pushed');
    } catch (error) {
      const reason = redact(messageOf(error));
      logger.error(
        { pushgateway: shown },
        `could not push metrics to ${shown} (${reason}): check metrics.pushgateway in ferry.yaml and that the gateway is reachable`,
      );
    }
  }
}
