/**
 * The bench's handle on a stand-in service running in a process of its own
 * (test/support/stand-in/main.ts): start it, switch its mode, read what it saw.
 */
import { spawn } from 'node:child_process';
import { get } from 'node:http';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { compileScript } from '../compiled-script.js';
import type { HoldFigures, StandInMode, StandInStats, StandInTimeline } from './service.js';

export class StandIn {
  private constructor(readonly url: string, private readonly stop: () => void) {}

  /**
   * Runs main.ts compiled to plain JavaScript (see compileScript): through
   * tsx its CPU per write (taken from the client's on 2 cores) rose by about
   * a tenth.
   */
  static async start(): Promise<StandIn> {
    const main = await compileScript(resolve(import.meta.dirname, 'main.ts'));
    const proc = spawn(process.execPath, [main.file], { stdio: ['ignore', 'pipe', 'inherit'] });
    proc.once('exit', () => main.remove());
    const line = await new Promise<string>((ok) => createInterface({ input: proc.stdout }).once('line', ok));
    return new StandIn(line.trim(), () => proc.kill('SIGTERM'));
  }

  /** Switches the mode and forgets the records and counters seen so far; `trace` keeps a timeline of the writes (the latency probe). */
  async mode(mode: StandInMode, options: { trace?: boolean } = {}): Promise<void> {
    await getJson(`${this.url}/__stand-in/mode?reset=1${options.trace ? '&trace=1' : ''}&json=${encodeURIComponent(JSON.stringify(mode))}`);
  }

  /** What the stand-in measured since the last mode switch: the writes' timeline (with `trace`), its CPU, its holds. */
  async timeline(): Promise<StandInTimeline> {
    return (await getJson(`${this.url}/__stand-in/timeline`)) as StandInTimeline;
  }

  /** How long the `latency` mode held its answers since the last mode switch. */
  async holds(): Promise<HoldFigures | undefined> {
    return (await this.timeline()).hold;
  }

  async stats(): Promise<{ stats: StandInStats; records: number }> {
    return (await getJson(`${this.url}/__stand-in/stats`)) as { stats: StandInStats; records: number };
  }

  /**
   * Records written per second as the service saw them, first write to last:
   * the push phase alone, without process start and setup, which a short bench
   * run would otherwise weigh far more than a real sync does.
   */
  async writeRate(): Promise<number> {
    const { stats } = await this.stats();
    return (stats.written * 1000) / Math.max(1, stats.lastWriteAt - stats.firstWriteAt);
  }

  /**
   * Record writes answered 2xx per second from the first record request (whatever its answer) to the last 201:
   * the service's rate as the adaptive-limit goals count it, a slow start and early 429s included.
   */
  async serviceRate(): Promise<number> {
    const { stats } = await this.stats();
    return (stats.written * 1000) / Math.max(1, stats.lastWriteAt - (stats.firstRowRequestAt || stats.firstWriteAt));
  }

  /** Records written per second from a second after the first write to the last (see StandInStats.settledAt); 0 for a shorter run. */
  async settledWriteRate(): Promise<number> {
    const { stats } = await this.stats();
    if (stats.settledAt === 0) return 0;
    return ((stats.written - stats.writtenBySettled) * 1000) / Math.max(1, stats.lastWriteAt - stats.settledAt);
  }

  close(): void {
    this.stop();
  }
}

/** A control request on a fresh connection (a kept-alive one may have been closed by the stand-in meanwhile). */
function getJson(url: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    get(url, { agent: false }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      res.on('end', () => resolve(JSON.parse(text)));
    }).on('error', reject);
  });
}
