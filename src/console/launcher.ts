/**
 * Runs started from the console: `ferry run` (or `ferry failures retry`) as a
 * library, in this process, under the same per-sync lock. Their counts are
 * kept here as the run reports them, so the run page moves between the
 * checkpoints a run from another process is seen at.
 */
import type { Logger } from 'pino';
import { runProject } from '../pipeline/run-project.js';
import type { ProjectRunSummary } from '../pipeline/run-project.js';
import { messageOf } from '../sdk/guards.js';
import type { RunCounts, StateStore } from '../state/index.js';

export interface Launch {
  id: number;
  syncs: string[];
  kind: 'run' | 'retry';
  startedAt: string;
  done: boolean;
  summaries?: ProjectRunSummary[];
  error?: string;
}

/** How long a POST waits for the run to show in the state store before answering without its id. */
const RUN_ID_WAIT_MS = 15_000;

export class Launcher {
  readonly #configFile: string;
  readonly #logger: Logger;
  readonly #launches = new Map<number, Launch>();
  /** Latest counts per sync of the runs this console is running. */
  readonly live = new Map<string, RunCounts>();
  #next = 1;
  #pending = new Set<Promise<unknown>>();

  constructor(configFile: string, logger: Logger) {
    this.#configFile = configFile;
    this.#logger = logger;
  }

  get(id: number): Launch | undefined {
    return this.#launches.get(id);
  }

  /**
   * Start a run (or a replay of the dead-letter) in the background and wait
   * until its first sync's run is in the store, so the page can go to it.
   */
  async start(
    store: StateStore,
    request: { syncs: string[]; kind: 'run' | 'retry'; fullRefresh?: boolean; failureIds?: number[] },
  ): Promise<{ launch: Launch; runId: string | null }> {
    const first = request.syncs[0]!;
    const before = (await store.lastRun(first))?.runId;
    const launch: Launch = { id: this.#next++, syncs: request.syncs, kind: request.kind, startedAt: new Date().toISOString(), done: false };
    this.#launches.set(launch.id, launch);
    const running = runProject({
      configFile: this.#configFile,
      syncNames: request.syncs,
      logger: this.#logger,
      ...(request.kind === 'retry' ? { retryFailures: true, ...(request.failureIds ? { failureIds: request.failureIds } : {}) } : {}),
      ...(request.fullRefresh ? { fullRefresh: true } : {}),
      progress: (sync) => ({
        update: (counts: RunCounts) => this.live.set(sync, { ...counts }),
        stop: () => this.live.delete(sync),
      }),
    })
      .then((summaries) => {
        launch.summaries = summaries;
      })
      .catch((error: unknown) => {
        launch.error = messageOf(error);
        this.#logger.warn({ err: error, syncs: request.syncs }, `a run started from the console failed: ${launch.error}`);
      })
      .finally(() => {
        launch.done = true;
        this.#pending.delete(running);
      });
    this.#pending.add(running);
    const deadline = Date.now() + RUN_ID_WAIT_MS;
    for (;;) {
      const last = await store.lastRun(first);
      if (last && last.runId !== before) return { launch, runId: last.runId };
      if (launch.done || Date.now() > deadline) return { launch, runId: launch.summaries?.[0]?.runId ?? null };
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Wait for the runs in progress (they stop at the next record on SIGINT/SIGTERM, as `ferry run` does). */
  async settle(): Promise<void> {
    await Promise.allSettled([...this.#pending]);
  }
}
