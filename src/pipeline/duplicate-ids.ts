/**
 * Records of one read that map to an id an earlier record of the same read
 * already took. The first record in read order wins: later ones are not
 * pushed, so a re-run of unchanged data sends nothing (letting the last win
 * would push every duplicate id twice on every run) and one id is never in
 * flight twice. Each duplicate is counted, and logged once with its origin.
 */
import type { Logger } from 'pino';
import { seenIds } from './seen-ids.js';

/** Duplicates named one by one in the log (and the summary); the rest are counted. */
const NAMED = 20;

export interface DuplicateId {
  remoteId: string;
  origin: string;
}

export class DuplicateIds {
  private readonly seen = seenIds();
  private count = 0;
  /** The first few, for the run summary. */
  readonly examples: DuplicateId[] = [];

  constructor(private readonly logger: Logger) {}

  /** Whether `remoteId` was already taken in this read; remembers it when not, and reports it when so. */
  isDuplicate(remoteId: string, origin: string): boolean {
    if (this.seen.addNew(remoteId)) return false;
    this.report(remoteId, origin);
    return true;
  }

  /** Whether an earlier unit of the read took `remoteId` (the plan's view: src/mapping/plan.ts). */
  has(remoteId: string): boolean {
    return this.seen.has(remoteId);
  }

  /** A first-seen unit takes `remoteId`: a later unit with it is a duplicate. */
  take(remoteId: string): void {
    this.seen.add(remoteId);
  }

  /** A unit not pushed because its id was taken: counted, and logged if among the first few. */
  report(remoteId: string, origin: string): void {
    this.count++;
    if (this.examples.length < NAMED) {
      this.examples.push({ remoteId, origin });
      this.logger.warn({ remoteId, origin }, 'duplicate id in one read: not pushed, the first record with this id wins');
    }
  }

  /** Logs the count of duplicates not named one by one, and frees the id set. */
  close(): void {
    if (this.count > NAMED) {
      this.logger.warn({ duplicates: this.count, named: NAMED }, `${this.count - NAMED} more duplicate ids in this read were not pushed`);
    }
    this.seen.close();
  }
}
