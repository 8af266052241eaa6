/**
 * SIGINT and SIGTERM (and an optional caller's signal) turn into one abort
 * signal for a run; `dispose` removes the handlers again so a long-lived
 * process (tests, an embedding program) does not collect them.
 */
import type { Logger } from 'pino';

export function stopOnSignals(logger: Logger, message: string, external?: AbortSignal): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const stop = (signal: NodeJS.Signals | 'abort') => {
    logger.warn({ signal }, message);
    controller.abort();
  };
  const onAbort = () => stop('abort');
  external?.addEventListener('abort', onAbort, { once: true });
  if (external?.aborted) controller.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return {
    signal: controller.signal,
    dispose() {
      external?.removeEventListener('abort', onAbort);
      process.removeListener('SIGINT', stop);
      process.removeListener('SIGTERM', stop);
    },
  };
}

/** Resolves on the first SIGINT or SIGTERM, with both handlers removed again: a server command (`ferry emulator`, `ferry console`) serves until then. */
export function untilStopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve(signal);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
