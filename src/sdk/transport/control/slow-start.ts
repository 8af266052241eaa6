/**
 * The slow start of the {@link RateController}: from a modest rate the rate
 * grows by a fixed step per accepted answer (so it doubles every few tens of
 * milliseconds while it binds) until the service shows a limit. This module
 * decides when that is, and what the limit seems to be.
 *
 * A service may refuse a share of requests at random, whatever the rate (a
 * fault mix of 10 % 429s); those must not end the slow start, or a fast run
 * would be cut to a crawl by the first one. A limit shows differently: from
 * the first 429 on, a token bucket is empty and refuses most of what is sent
 * faster than it refills. So the slow start ends on
 *
 * - a run of 429s since the first one that the share seen so far cannot
 *   explain (a binomial tail below one in 100,000, judged against the share
 *   of 429s seen before, or 2 % while there were none), or
 * - a window of answers with more than 30 % refused (no service worth pacing
 *   refuses that much at random).
 *
 * The limit is then the rate times the share the service accepted of the
 * requests sent after the first refused one (an empty bucket lets through
 * exactly its own rate and refuses the rest), counted by when the requests
 * went, not when their answers came back (answers overtake one another).
 */

/** Judged in windows of this many answers: enough to tell a 30 % share from a random 10 %. */
const WINDOW = 40;
/** A window refusing more than this ends the slow start, however it got there. */
const MAX_RANDOM_SHARE = 0.3;
/** A run of 429s less likely than this under the share seen so far ends the slow start at once. */
const SURPRISE = 1e-5;
/** The share assumed when none has been seen yet (a first 429 is not proof of a limit). */
const LEAST_SHARE = 0.02;
/** Growth waits for this many accepted answers in a row, so an overshoot stops growing at its first 429s. */
const CLEAN_RUN = 4;

/** After an answer: may the rate grow; or the slow start is over, with the limit found and the share of 429s seen before it. */
export type SlowStartStep = { grow: boolean } | { exit: true; limit: number; usualShare: number };

interface Episode {
  /** When the first refused request of the episode went. */
  firstSentAt: number;
  /** Answers to requests sent since then, 429s among them (the first included). */
  answers: number;
  throttled: number;
  /** Answers and 429s of the window before the episode opened, added to what was seen before it. */
  before: { answers: number; throttled: number };
}

export class SlowStart {
  private clean = 0;
  private window = { answers: 0, throttled: 0 };
  /** Answers and 429s of the windows closed so far: the share a run of 429s is judged against. */
  private seen = { answers: 0, throttled: 0 };
  private episode: Episode | undefined;

  /**
   * One answer, with when its request went and the rate it went at. Says
   * whether the rate may grow (an accepted answer after a clean run), or that
   * the slow start is over and the limit it found.
   */
  onAnswer(throttled: boolean, sentAt: number, rate: number): SlowStartStep {
    this.window.answers++;
    const episode = this.track(throttled, sentAt);
    if (throttled) {
      this.clean = 0;
      this.window.throttled++;
      if (episode && this.surprising(episode)) {
        return { exit: true, limit: this.limitFound(episode, rate, this.window), usualShare: this.usualShare() };
      }
    } else {
      this.clean++;
    }
    if (this.window.answers >= WINDOW) {
      const { answers, throttled: refused } = this.window;
      this.window = { answers: 0, throttled: 0 };
      if (refused > answers * MAX_RANDOM_SHARE) {
        return { exit: true, limit: this.limitFound(this.episode, rate, { answers, throttled: refused }), usualShare: this.usualShare() };
      }
      this.seen.answers += answers;
      this.seen.throttled += refused;
      this.episode = undefined;
    }
    return { grow: !throttled && this.clean >= CLEAN_RUN };
  }

  /** The share of 429s in the windows before the one that ended the slow start. */
  private usualShare(): number {
    return this.seen.answers > 0 ? this.seen.throttled / this.seen.answers : 0;
  }

  /** Open an episode at a first 429; count the answers to requests sent since. */
  private track(throttled: boolean, sentAt: number): Episode | undefined {
    let episode = this.episode;
    if (!episode) {
      if (!throttled) return undefined;
      const before = { answers: this.window.answers - 1, throttled: this.window.throttled };
      episode = this.episode = { firstSentAt: sentAt, answers: 0, throttled: 0, before };
    }
    if (sentAt < episode.firstSentAt) return episode;
    episode.answers++;
    if (throttled) episode.throttled++;
    return episode;
  }

  /** Are the 429s after the episode's first too many for the share seen so far? */
  private surprising(episode: Episode): boolean {
    const answers = this.seen.answers + episode.before.answers;
    const share = Math.max(LEAST_SHARE, (this.seen.throttled + episode.before.throttled + 0.5) / (answers + 1));
    return binomialTail(episode.throttled - 1, episode.answers - 1, share) < SURPRISE;
  }

  /**
   * The rate times the share accepted of the requests sent since the first
   * refused one (an empty bucket lets through its own rate, the rest is
   * refused), or of the window's when no episode is open.
   */
  private limitFound(episode: Episode | undefined, rate: number, window: { answers: number; throttled: number }): number {
    this.episode = undefined;
    const { answers, throttled } = episode && episode.answers > 0 ? episode : window;
    return (rate * (answers - throttled)) / Math.max(answers, 1);
  }
}

/** P(X ≥ k) for X ~ Binomial(n, p). */
export function binomialTail(k: number, n: number, p: number): number {
  if (k <= 0) return 1;
  if (k > n) return 0;
  let term = (1 - p) ** n; // P(X = 0)
  let below = 0;
  for (let i = 0; i < k; i++) {
    below += term;
    term *= ((n - i) / (i + 1)) * (p / (1 - p));
  }
  return Math.max(0, 1 - below);
}
