/**
 * The fenced YAML blocks of README.md and docs/*.md, and what each one is:
 * a whole sync (or export) that can run, a fragment of a file (a `source:`,
 * a `map:`), or something that is not a ferry file (a Kubernetes manifest).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parse } from 'yaml';

export interface YamlExample {
  /** `docs/mapping.md:114`, the line of the opening fence. */
  where: string;
  file: string;
  text: string;
  /** The parsed block, or the parse error's message. */
  value: unknown;
  parseError?: string;
}

/** Every ```yaml block of the README and docs/, in file order. */
export function yamlExamples(root: string): YamlExample[] {
  const files = ['README.md', ...readdirSync(join(root, 'docs')).filter((name) => name.endsWith('.md')).sort().map((name) => `docs/${name}`)];
  const examples: YamlExample[] = [];
  for (const file of files) {
    const lines = readFileSync(join(root, file), 'utf8').split('\n');
    for (let i = 0; i < lines.length; i++) {
      const open = /^(\s*)```ya?ml\s*$/.exec(lines[i] ?? '');
      if (!open) continue;
      const indent = open[1]?.length ?? 0;
      let end = i + 1;
      while (end < lines.length && !/^\s*```\s*$/.test(lines[end] ?? '')) end++;
      const text = lines
        .slice(i + 1, end)
        .map((line) => line.slice(Math.min(indent, line.length - line.trimStart().length)))
        .join('\n');
      const where = `${relative(root, join(root, file))}:${i + 1}`;
      const alternatives = splitAlternatives(dedent(text));
      alternatives.forEach((part, n) => {
        const example: YamlExample = { where: alternatives.length > 1 ? `${where} (${n + 1})` : where, file, text: part, value: undefined };
        try {
          example.value = parse(part);
        } catch (error) {
          example.parseError = error instanceof Error ? error.message : String(error);
        }
        examples.push(example);
      });
      i = end;
    }
  }
  return examples;
}

/**
 * A block showing alternatives of one key (`auth:` as a header, `auth:` in
 * the query; several `source:` examples) is several examples: cut it where a
 * top-level key comes again.
 */
export function splitAlternatives(text: string): string[] {
  const parts: string[][] = [[]];
  let seen = new Set<string>();
  for (const line of text.split('\n')) {
    const key = /^([A-Za-z_][\w-]*):/.exec(line)?.[1];
    if (key !== undefined && seen.has(key)) {
      parts.push([]);
      seen = new Set();
    }
    if (key !== undefined) seen.add(key);
    parts.at(-1)?.push(line);
  }
  return parts.map((part) => part.join('\n')).filter((part) => part.trim() !== '');
}

/** A block cut from deeper in a file (`    source:` …) read as its own document. */
export function dedent(text: string): string {
  const lines = text.split('\n');
  const indents = lines.filter((line) => line.trim() !== '' && !line.trimStart().startsWith('#')).map((line) => line.length - line.trimStart().length);
  const least = Math.min(...indents);
  return least > 0 && Number.isFinite(least) ? lines.map((line) => line.slice(Math.min(least, line.length - line.trimStart().length))).join('\n') : text;
}

const PROJECT_KEYS = new Set(['version', 'service', 'state', 'emulator', 'metrics', 'notify', 'include', 'plugins']);

export type ExampleKind =
  /** `syncs:` / `exports:` (maybe with project keys): run it. */
  | 'runnable'
  /** A piece of a ferry file: checked as config in a skeleton. */
  | 'fragment'
  /** Not a ferry file at all (Kubernetes, Prometheus rules). */
  | 'foreign';

export function kindOf(example: YamlExample): ExampleKind {
  const value = example.value;
  // Prometheus alerting and recording rules.
  if (Array.isArray(value) && value.every((item) => typeof item === 'object' && item !== null && ('alert' in item || 'record' in item))) return 'foreign';
  if (Array.isArray(value) && value.every((item) => typeof item === 'object' && item !== null && 'name' in item && 'source' in item)) return 'runnable';
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'fragment';
  const keys = Object.keys(value);
  if (keys.includes('apiVersion') && keys.includes('kind')) return 'foreign';
  if ((keys.includes('syncs') || keys.includes('exports')) && keys.every((key) => key === 'syncs' || key === 'exports' || PROJECT_KEYS.has(key))) return 'runnable';
  return 'fragment';
}
