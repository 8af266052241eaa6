/**
 * What request controls in several processes that share one API key learn
 * together (docs/sink.md, "Across processes"). A control finds the service's
 * limit from its own answers; with a share, while no limit is known one
 * process runs the slow start and the others wait for the limit it finds,
 * what one process learnt (a Retry-After, a first limit) reaches the others
 * within a beat, and a process that starts later begins at its share of the
 * rate learnt service-wide (the others making room) instead of
 * rediscovering the limit on top of the others. The port is implemented on
 * PostgreSQL state (src/runtime/rate-budget.ts); SQLite state has one
 * process, so no share.
 */

export type ShareNews = 'start' | 'limit';

/** A request control as its share sees it. */
export interface ShareMember {
  /**
   * Attempts admitted so far (a member that sent nothing since the last beat
   * is idle) and answers other than 429 (what the service accepted of it).
   */
  counts(): { admitted: number; accepted: number };
  /**
   * What was learnt service-wide: `rate` is this member's share of it,
   * requests per second (RateController.adopt). `start`: a member that has
   * found nothing yet starts just below it; `limit`: a member still in its
   * slow start ends it there (others found the limit it is searching for).
   * `part`: the share's part of the key's limit (it judges windows of that
   * part of the answers).
   */
  adopt(rate: number, how: ShareNews, part?: number): void;
  /**
   * Hold new requests `ms`: another process was told to wait (a Retry-After
   * to a service that refused everything), or another process runs the slow
   * start and this member waits for the limit it finds.
   */
  holdFor(ms: number): void;
  /** The wait for the limit is over (it was found, or this process runs the slow start now): send again at once. */
  release(): void;
}

export interface RateShare {
  /** A control joins; returns how to leave. It is told its share when one is known (at once, or within a beat). */
  join(member: ShareMember): () => void;
  /**
   * A member cut its rate on the service's 429s (`rate`: its new rate): the
   * service-wide limit is what every process got accepted then, and the
   * others come down to their share of it. `holdMs`: the service refuses
   * everything and said to wait that long.
   */
  throttled(member: ShareMember, rate: number, holdMs?: number): void;
}
