/**
 * `${VAR}` and `${VAR:-default}` in string values, taken from the
 * environment before validation. `$${…}` is a literal `${…}`. Keys and
 * comments are left alone; a value made only of `${VAR}` stays a string.
 */
import { dirname } from 'node:path';
import { isPair, isScalar, isSeq, visit } from 'yaml';
import type { Scalar } from 'yaml';
import type { ConfigIssue } from './issues.js';
import { formatPath } from './issues.js';
import { registerInterpolated } from './secrets.js';
import { positionAt } from './yaml-source.js';
import type { YamlSource } from './yaml-source.js';

const REFERENCE = /\$\$\{|\$\{([^}]*)\}|\$\{/g;
const INNER = /^([A-Za-z_][A-Za-z0-9_]*)(?::-([\s\S]*))?$/;

export type Env = Readonly<Record<string, string | undefined>>;

interface Problem {
  message: string;
  /** Text to find in the scalar's source to point at the exact column. */
  needle: string;
}

/**
 * Substitute variables in one string; problems are returned, not thrown, so
 * all get reported. Values taken from the environment (not defaults written
 * in the file) are appended to `fromEnv`: they may be secrets.
 */
export function interpolateString(text: string, env: Env, fromEnv: string[] = []): { value: string; problems: Problem[] } {
  const problems: Problem[] = [];
  const value = text.replace(REFERENCE, (match: string, inner: string | undefined) => {
    if (match === '$${') return '${';
    if (inner === undefined) {
      problems.push({ message: 'unterminated "${": close it with "}" (write "$${" for a literal "${")', needle: '${' });
      return match;
    }
    const parts = INNER.exec(inner);
    if (!parts) {
      problems.push({
        message: `malformed variable reference ${match}: use \${NAME} or \${NAME:-default} (write "$\${" for a literal "\${")`,
        needle: match,
      });
      return match;
    }
    const name = parts[1] ?? '';
    const fallback = parts[2];
    const found = env[name];
    // Like the shell's ${VAR:-default}: an empty variable also takes the default.
    if (found !== undefined && (found !== '' || fallback === undefined)) {
      fromEnv.push(found);
      return found;
    }
    if (fallback !== undefined) return fallback;
    problems.push({
      message: `environment variable ${name} is not set (set it, or give a default: \${${name}:-value})`,
      needle: `\${${name}`,
    });
    return match;
  });
  return { value, problems };
}

/**
 * Interpolate every string value of a parsed file in place; returns the
 * problems with positions. Every value taken from the environment is
 * registered as a possible secret before anything can print it.
 */
export function interpolateDocument(source: YamlSource, env: Env): ConfigIssue[] {
  const document = source.document;
  if (!document) return [];
  const issues: ConfigIssue[] = [];
  visit(document, {
    Scalar(key, node, ancestry) {
      if (key === 'key' || typeof node.value !== 'string' || !node.value.includes('${')) return;
      const fromEnv: string[] = [];
      const { value, problems } = interpolateString(node.value, env, fromEnv);
      for (const found of fromEnv) registerInterpolated(found, dirname(source.file));
      node.value = value;
      for (const problem of problems) {
        issues.push({
          ...positionAt(source, offsetOf(source, node, problem.needle)),
          path: formatPath(keyPathOf(ancestry, node)),
          message: problem.message,
        });
      }
    },
  });
  return issues;
}

/** The exact column of a reference when it is visible in the source, else the scalar's start. */
function offsetOf(source: YamlSource, node: Scalar, needle: string): number {
  const [start = 0, end = start] = node.range ?? [];
  const index = source.text.slice(start, end).indexOf(needle);
  return index === -1 ? start : start + index;
}

/** Key path of a node from `visit`'s ancestry (document, maps, pairs, seqs…). */
function keyPathOf(ancestry: readonly unknown[], node: unknown): (string | number)[] {
  const chain = [...ancestry, node];
  const path: (string | number)[] = [];
  for (let i = 0; i < chain.length - 1; i++) {
    const parent = chain[i];
    const child = chain[i + 1];
    if (isSeq(parent)) path.push(parent.items.indexOf(child));
    else if (isPair(parent) && parent.value === child) {
      const keyNode: unknown = parent.key;
      path.push(isScalar(keyNode) ? String(keyNode.value) : String(keyNode));
    }
  }
  return path;
}
