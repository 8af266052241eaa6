/**
 * When a run checkpoints: every 500 finished units or every 2 s, whichever
 * comes first, and once at the end. What position is safe to store is the
 * {@link CheckpointTracker}'s business; this class decides when, keeps one
 * checkpoint in flight at a time, and writes the run's progress with it.
 */
import type { Logger } from 'pino';
import type { CursorPosition } from '../sdk/types.js';
import type { CursorStore, RunCounts, RunStore } from '../state/index.js';
import { CheckpointTracker } from './checkpoint-tracker.js';

export const CHECKPOINT_EVERY_UNITS = 500;
export const CHECKPOINT_INTERVAL_MS = 2000;
/** While the source has nothing new, a landed position is stored at most this often (change sources confirm upstream after it). */
export const IDLE_CHECKPOINT_MS = 250;

/** Told of each stored position; `final` once, after the run's last checkpoint (its promise is awaited then). */
export type CheckpointListener = (position: CursorPosition | undefined, final: boolean) => void | Promise<void>;

export class Checkpointer {
  readonly tracker: CheckpointTracker;
  private readonly listeners: CheckpointListener[] = [];
  private stored: CursorPosition | undefined;
  private finishedSinceCheckpoint = 0;
  private lastCheckpointMs = Date.now();
  private inFlight: Promise<void> | undefined;

  /** `store` undefined: a dry run, which tracks positions but writes nothing. */
  constructor(
    private readonly store: (CursorStore & RunStore) | undefined,
    private readonly sync: string,
    private readonly runId: string | null,
    private readonly counts: Readonly<RunCounts>,
    private readonly log: Logger,
    /** Called after each checkpoint is written, the final one included (traces draw an interval span). */
    private readonly onCheckpoint?: (counts: Readonly<RunCounts>) => void,
    /** Positions are a change source's resume tokens, in read order (see CheckpointTracker). */
    positionsInReadOrder = false,
  ) {
    this.tracker = new CheckpointTracker(positionsInReadOrder);
  }

  /** Calls `listener` with each position stored, after its transaction committed (a change source confirms upstream then). */
  listen(listener: CheckpointListener): void {
    this.listeners.push(listener);
  }

  /** After the final checkpoint (or a run that could not write it): the listeners' last call, awaited. */
  async end(): Promise<void> {
    const listeners = this.listeners.splice(0);
    for (const listener of listeners) await listener(this.stored, true);
  }

  /**
   * The source has nothing new for now: store the landed position if it
   * moved since the last checkpoint, at most every {@link IDLE_CHECKPOINT_MS}.
   * Without it, a change stream at rest would keep its last changes
   * unconfirmed until the next change came.
   */
  idle(): Promise<void> | undefined {
    if (this.inFlight !== undefined || Date.now() - this.lastCheckpointMs < IDLE_CHECKPOINT_MS) return undefined;
    const position = this.tracker.safePosition();
    if (position === undefined || position === this.stored) return undefined;
    this.inFlight = this.checkpoint().finally(() => (this.inFlight = undefined));
    return this.inFlight;
  }

  /** Registers a unit in read order; pass the ticket to {@link finished}. */
  begin(position: CursorPosition | undefined, lowest?: string | number): number {
    return this.tracker.begin(position, lowest);
  }

  /**
   * A unit was acknowledged, found unchanged or dead-lettered: checkpoint if
   * one is due. Returns the checkpoint to await, or undefined when none was
   * started (the common case, kept free of promises: it runs once per unit).
   *
   * `unchanged` units do not count toward {@link CHECKPOINT_EVERY_UNITS}: they
   * wrote nothing, so a checkpoint after them would only move the cursor and
   * the run's counts, which the time trigger does often enough (a no-op
   * re-run of 200k records otherwise wrote 400 checkpoints in two seconds).
   */
  finished(ticket: number, unchanged = false): Promise<void> | undefined {
    this.tracker.finish(ticket);
    if (!unchanged) this.finishedSinceCheckpoint++;
    if (this.inFlight !== undefined) return undefined;
    const due = this.finishedSinceCheckpoint >= CHECKPOINT_EVERY_UNITS || Date.now() - this.lastCheckpointMs >= CHECKPOINT_INTERVAL_MS;
    if (!due) return undefined;
    this.inFlight = this.checkpoint().finally(() => (this.inFlight = undefined));
    return this.inFlight;
  }

  /**
   * The run's last checkpoint: moves the cursor to `position` (undefined: only
   * commits buffered writes), after any checkpoint still in flight.
   */
  async final(position: CursorPosition | undefined): Promise<void> {
    await this.inFlight;
    if (!this.store) return;
    if (position) await this.store.checkpoint(this.sync, position);
    else await this.store.flush();
    this.announce(position);
    this.onCheckpoint?.(this.counts);
  }

  private async checkpoint(): Promise<void> {
    this.finishedSinceCheckpoint = 0;
    this.lastCheckpointMs = Date.now();
    if (!this.store) return;
    const position = this.tracker.safePosition();
    if (position) await this.store.checkpoint(this.sync, position);
    else await this.store.flush();
    this.announce(position);
    if (this.runId) await this.store.updateRun(this.runId, this.counts);
    this.onCheckpoint?.(this.counts);
    // Off a TTY this is the progress a scheduler's log shows.
    this.log.info({ counts: this.counts, pending: this.tracker.pending }, 'progress');
  }

  private announce(position: CursorPosition | undefined): void {
    if (position === undefined || position === this.stored) return;
    this.stored = position;
    for (const listener of this.listeners) void listener(position, false);
  }
}
