/**
 * The progress line on a TTY: read, pushed, unchanged, failed, rate, when
 * the source's size is known an ETA, and the concurrency and request rate the
 * push is at with why neither is higher. Off a TTY there is no bar; the JSON
 * logs carry progress instead.
 */
import { createRequire } from 'node:module';
import type CliProgress from 'cli-progress';
import { describeLimits } from '../sink/index.js';
import type { PushLimits } from '../sink/index.js';
import type { RunCounts } from '../state/index.js';
import { formatDuration } from './format.js';

export interface ProgressDisplay {
  /** `limits`: the concurrency and rate the push is at, and why not higher (absent before the first request). */
  update(counts: RunCounts, limits?: PushLimits): void;
  stop(): void;
}

export function createProgress(sync: string, total?: number): ProgressDisplay {
  if (!process.stderr.isTTY) return { update() {}, stop() {} };
  // Loaded only for a bar: off a TTY (a cron job, --json into a pipe) a run does not pay for it.
  const cliProgress = createRequire(import.meta.url)('cli-progress') as typeof CliProgress;
  const bar = new cliProgress.SingleBar(
    {
      stream: process.stderr,
      format: total
        ? `${sync} [{bar}] {value}/{total} read | {pushed} pushed {unchanged} unchanged {failed} failed | {rate}/s{etaNote}{limits}`
        // Not {eta}: cli-progress fills that token itself (with INF or NULL when it has no estimate).
        : `${sync} {value} read | {pushed} pushed {unchanged} unchanged {failed} failed | {rate}/s{limits}`,
      hideCursor: true,
      clearOnComplete: false,
      fps: 8,
    },
    cliProgress.Presets.shades_classic,
  );
  const started = Date.now();
  bar.start(total ?? 0, 0, { pushed: 0, unchanged: 0, failed: 0, rate: 0, etaNote: '', limits: '' });
  return {
    update(counts, limits) {
      const seconds = Math.max((Date.now() - started) / 1000, 0.001);
      bar.update(counts.read, {
        pushed: counts.pushed,
        unchanged: counts.unchanged,
        failed: counts.failed,
        rate: Math.round(counts.read / seconds),
        etaNote: etaText(counts.read, total, seconds),
        limits: limits ? ` | ${describeLimits(limits)}` : '',
      });
    },
    stop() {
      bar.stop();
    },
  };
}

/**
 * ` | ETA 1m 05s` from the records read so far, the source's estimated total
 * and the seconds since the start; empty while there is nothing to go on
 * (no total, nothing read yet) or once the read passed the estimate, never
 * NaN or Infinity. cli-progress's own ETA printed `ETA NFs` whenever its
 * window of recent values saw no progress.
 */
export function etaText(read: number, total: number | undefined, seconds: number): string {
  if (total === undefined || !(total > 0) || !(read > 0) || !(seconds > 0) || read >= total) return '';
  const left = ((total - read) * seconds) / read;
  return Number.isFinite(left) ? ` | ETA ${formatDuration(left * 1000)}` : '';
}
