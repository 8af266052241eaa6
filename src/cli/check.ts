/**
 * `ferry check [name…]`: parse the arguments, run the project's checks
 * (src/pipeline/check-project.ts) and print one line per check.
 */
import type { Command } from 'commander';
import { formatConfigIssues } from '../config/index.js';
import { runChecks } from '../project/check.js';
import type { CheckItem } from '../project/check.js';
import { configFileOf, quietLogger } from './context.js';
import { mark, plural } from './format.js';
import type { RegisterCommand } from './main.js';
import { printJson } from './output.js';

function printItems(items: readonly CheckItem[]): void {
  const width = Math.max(...items.map((i) => i.kind.length));
  for (const item of items) {
    const symbol = item.kind === 'warning' ? '!' : mark(item.ok);
    const line = `${symbol} ${item.kind.padEnd(width)}  ${item.name === '' ? '' : `${item.name}: `}${item.message}`;
    if (item.ok) console.log(line);
    else console.error(line);
    if (item.issues && item.issues.length > 0) {
      console.error(formatConfigIssues(item.issues).replace(/^/gm, '    '));
    }
  }
}

export const register: RegisterCommand = (command, setExitCode) => {
  command
    .argument('[names...]', 'only these syncs and exports (default: all)')
    .option('--json', 'print the results as JSON on stdout')
    .action(async (names: string[], opts: { json?: boolean }, self: Command) => {
      const { items, exitCode } = await runChecks(configFileOf(self), { names, logger: quietLogger() });
      if (opts.json) {
        printJson({ ok: exitCode === 0, exitCode, items });
      } else {
        printItems(items);
        const failed = items.filter((i) => !i.ok).length;
        if (failed === 0) console.log('\nAll checks passed.');
        else console.error(`\n${plural(failed, 'check')} failed.`);
      }
      setExitCode(exitCode);
    });
};
