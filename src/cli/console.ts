/** `ferry console`: serve the web console (src/console) until SIGINT/SIGTERM. */
import type { Command } from 'commander';
import { DEFAULT_HOST, DEFAULT_PORT, startConsole } from '../console/server.js';
import { createLogger } from '../runtime/logger.js';
import { untilStopSignal } from '../runtime/stop-signals.js';
import { FerryError } from '../sdk/errors.js';
import { configFileOf } from './context.js';
import type { RegisterCommand } from './main.js';

function parsePort(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65_535) throw new FerryError('FERRY_USAGE', `--port takes a port number (0–65535), not "${value}"`);
  return n;
}

export const register: RegisterCommand = (command) => {
  command
    .option('--port <n>', 'port to listen on (0: any free port)', parsePort, DEFAULT_PORT)
    .option('--host <address>', 'address to listen on; anything but loopback requires the access token', DEFAULT_HOST)
    .option('--token <token>', 'access token (default: generated when --host is not loopback; env FERRY_CONSOLE_TOKEN)')
    .action(async (flags: { port: number; host: string; token?: string }, self: Command) => {
      const token = flags.token ?? process.env.FERRY_CONSOLE_TOKEN;
      const running = await startConsole({
        configFile: configFileOf(self),
        host: flags.host,
        port: flags.port,
        ...(token ? { token } : {}),
        logger: createLogger({ level: process.env.FERRY_LOG_LEVEL ?? 'warn' }),
      });
      console.log('ferry console: open');
      console.log(running.url);
      await untilStopSignal();
      await running.close();
      console.log('ferry console stopped');
    });
};
