/**
 * The bench's handle on a stand-in service running in a process of its own
 * (bench/stand-in/main.ts): start it, switch its mode, read what it saw.
 */
import { spawn } from 'node:child_process';
import { get } from 'node:http';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { StandInMode, StandInStats } from './service.js';

const tsx = resolve(import.meta.dirname, '../../node_modules/tsx/dist/cli.mjs');

export class StandIn {
  private constructor(readonly url: string, private readonly stop: () => void) {}

  static async start(): Promise<StandIn> {
    const proc = spawn(process.execPath, [tsx, resolve(import.meta.dirname, 'main.ts')], { stdio: ['ignore', 'pipe', 'inherit'] });
    const line = await new Promise<string>((ok) => createInterface({ input: proc.stdout }).once('line', ok));
    return new StandIn(line.trim(), () => proc.kill('SIGTERM'));
  }

  /** Switches the mode and forgets the records and counters seen so far. */
  async mode(mode: StandInMode): Promise<void> {
    await getJson(`${this.url}/__stand-in/mode?reset=1&json=${encodeURIComponent(JSON.stringify(mode))}`);
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
