/**
 * What a configuration problem looks like once it has a place: the file,
 * line and column, the key path, and what was expected against what was found.
 */
import { FerryError } from '../sdk/errors.js';
import path from 'node:path';

/** A position in a file, 1-based. */
export interface SourcePosition {
  file: string;
  line: number;
  column: number;
}

export interface ConfigIssue extends SourcePosition {
  /** Key path in the file, e.g. `syncs[2].target.map.id`. */
  path: string;
  message: string;
  expected?: string;
  /** A short rendering of the value found; secrets are `***`. */
  found?: string;
}

/** `syncs[2].target.map.id`; keys that are not identifiers are quoted: `fields["close value"]`. */
export function formatPath(segments: readonly PropertyKey[]): string {
  let out = '';
  for (const segment of segments) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (typeof segment === 'string' && /^[A-Za-z_$][\w$-]*$/.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(String(segment))}]`;
  }
  return out;
}

/** A file name as a user reads it: relative to the current directory when inside it. */
export function displayFile(file: string, cwd: string = process.cwd()): string {
  const relative = path.relative(cwd, file);
  return relative === '' || relative.startsWith('..') || path.isAbsolute(relative) ? file : relative;
}

/** One line per issue: `file:line:col  path  message (expected X, found Y)`. */
export function formatConfigIssues(issues: readonly ConfigIssue[], cwd?: string): string {
  return issues
    .map((issue) => {
      const where = `${displayFile(issue.file, cwd)}:${issue.line}:${issue.column}`;
      const facts = [
        issue.expected === undefined ? undefined : `expected ${issue.expected}`,
        issue.found === undefined ? undefined : `found ${issue.found}`,
      ].filter((fact): fact is string => fact !== undefined);
      const tail = facts.length > 0 ? ` (${facts.join(', ')})` : '';
      const keyPath = issue.path === '' ? '(top level)' : issue.path;
      return `${where}  ${keyPath}  ${issue.message}${tail}`;
    })
    .join('\n');
}

/** Issues in file order, then position, so output reads top to bottom. */
export function sortIssues(issues: readonly ConfigIssue[], fileOrder: readonly string[]): ConfigIssue[] {
  const rank = (file: string) => {
    const index = fileOrder.indexOf(file);
    return index === -1 ? fileOrder.length : index;
  };
  return [...issues].sort(
    (a, b) => rank(a.file) - rank(b.file) || a.line - b.line || a.column - b.column,
  );
}

/**
 * Inspect every item (sync or export) and keep the ready ones; if any has a
 * problem, throw one FERRY_CONFIG_INVALID listing all of them, so nothing
 * runs while part of the configuration is broken.
 */
export async function prepareAll<Item, Ready>(
  items: readonly Item[],
  inspect: (item: Item) => Promise<{ prepared?: Ready; issues: ConfigIssue[] }>,
  hint: string,
): Promise<Ready[]> {
  const issues: ConfigIssue[] = [];
  const ready: Ready[] = [];
  for (const item of items) {
    const result = await inspect(item);
    issues.push(...result.issues);
    if (result.prepared) ready.push(result.prepared);
  }
  if (issues.length > 0) {
    throw new FerryError('FERRY_CONFIG_INVALID', `${issues.length} problem(s) in the configuration:\n${formatConfigIssues(issues)}`, {
      details: { issues },
      hint,
    });
  }
  return ready;
}
