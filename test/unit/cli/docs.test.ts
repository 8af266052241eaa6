/**
 * docs/cli.md documents the CLI as `--help` shows it: every command has a
 * section (`### ferry <command>`), and every option of a command and of its
 * subcommands is named in that section; the global options in theirs.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../../src/cli/main.js';

const DOC = readFileSync(resolve(import.meta.dirname, '../../../docs/cli.md'), 'utf8');

/** The text from a heading to the next heading of the same or a higher level. */
function section(heading: string): string {
  const start = DOC.indexOf(`\n${heading}\n`);
  if (start < 0) return '';
  const level = /^#+/.exec(heading)![0];
  const rest = DOC.slice(start + heading.length + 2);
  const end = rest.search(new RegExp(`\\n#{1,${level.length}} `));
  return end < 0 ? rest : rest.slice(0, end);
}

function longFlags(command: Command): string[] {
  return command.options.map((option) => option.long ?? option.short ?? '').filter((flag) => flag !== '' && flag !== '--help');
}

/** A command and its subcommands, depth first, with their paths (`failures list`). */
function walk(command: Command, path: string[] = []): { path: string[]; command: Command }[] {
  return [{ path, command }, ...command.commands.flatMap((sub) => walk(sub, [...path, sub.name()]))];
}

describe('docs/cli.md', () => {
  it('documents every command, subcommand and option --help shows', async () => {
    const program = await buildProgram(() => true);
    const missing: string[] = [];
    for (const top of program.commands) {
      const text = [section(`### ferry ${top.name()}`), ...top.commands.map((sub) => section(`### ferry ${top.name()} ${sub.name()}`))].join('\n');
      if (text === '\n'.repeat(top.commands.length)) {
        missing.push(`### ferry ${top.name()} (no section)`);
        continue;
      }
      for (const { path, command } of walk(top)) {
        const name = ['ferry', top.name(), ...path].join(' ');
        if (path.length > 0 && !text.includes(path[path.length - 1]!)) missing.push(`${name} (subcommand)`);
        for (const flag of longFlags(command)) if (!text.includes(flag)) missing.push(`${name} ${flag}`);
      }
    }
    const globals = section('## Global options');
    for (const flag of [...longFlags(program), '--help']) if (!globals.includes(flag)) missing.push(`global ${flag}`);
    expect(missing).toEqual([]);
  });

  it('lists every command in the command table', async () => {
    const program = await buildProgram(() => false);
    const table = section('## Commands');
    expect(program.commands.map((c) => c.name()).filter((name) => !table.includes(`(#ferry-${name}`) && !table.includes(`\`${name} `))).toEqual([]);
  });
});
