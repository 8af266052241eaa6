/**
 * The few semver ranges plugin manifests put on `peerDependencies.ferry`:
 * `^x.y.z`, `~x.y.z`, comparisons (`>=x`, `<x.y`), exact or partial versions
 * (`0.1.2`, `0.1`, `0.x`), `*`, space-separated conjunctions and `||`.
 * Pre-release tags are ignored. Anything else is `undefined` (unknown), so the
 * caller can decide not to refuse a plugin over syntax it cannot read.
 */

type Triple = [number, number, number];

interface Comparator {
  op: '>=' | '>' | '<=' | '<' | '=';
  version: Triple;
}

/** `1.2.3` → [1,2,3]; `1.2` / `1` / `1.x` give the missing parts as undefined. */
function parsePartial(text: string): (number | undefined)[] | undefined {
  const m = /^v?(\d+|[xX*])(?:\.(\d+|[xX*]))?(?:\.(\d+|[xX*]))?(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/.exec(text);
  if (!m) return undefined;
  const parts: (number | undefined)[] = [];
  for (const part of [m[1], m[2], m[3]]) {
    // Everything after a wildcard is a wildcard too.
    if (part === undefined || /^[xX*]$/.test(part) || parts.includes(undefined)) parts.push(undefined);
    else parts.push(Number(part));
  }
  return parts;
}

function compare(a: Triple, b: Triple): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  return 0;
}

function fill(parts: (number | undefined)[]): Triple {
  return [parts[0] ?? 0, parts[1] ?? 0, parts[2] ?? 0];
}

/** The comparators one range term stands for. */
function expand(term: string): Comparator[] | undefined {
  if (term === '*' || term === '' || term === 'x' || term === 'X') return [];
  const op = /^(\^|~>?|>=|<=|>|<|=)?\s*(.*)$/.exec(term);
  if (!op) return undefined;
  const operator = op[1] ?? '';
  const parts = parsePartial(op[2] ?? '');
  if (!parts) return undefined;
  const [major, minor, patch] = parts;
  const low = fill(parts);
  if (major === undefined) return operator === '<' || operator === '>' ? undefined : [];
  if (operator === '^') {
    // ^ allows changes that do not modify the left-most non-zero part.
    const high: Triple =
      major > 0 || minor === undefined ? [major + 1, 0, 0] : minor > 0 || patch === undefined ? [0, minor + 1, 0] : [0, 0, patch + 1];
    return [{ op: '>=', version: low }, { op: '<', version: high }];
  }
  if (operator === '~' || operator === '~>') {
    const high: Triple = minor === undefined ? [major + 1, 0, 0] : [major, minor + 1, 0];
    return [{ op: '>=', version: low }, { op: '<', version: high }];
  }
  if (operator === '' || operator === '=') {
    if (minor === undefined) return [{ op: '>=', version: low }, { op: '<', version: [major + 1, 0, 0] }];
    if (patch === undefined) return [{ op: '>=', version: low }, { op: '<', version: [major, minor + 1, 0] }];
    return [{ op: '=', version: low }];
  }
  if (operator === '>' && (minor === undefined || patch === undefined)) {
    // `>1` means 2.0.0 and up; `>1.2` means 1.3.0 and up.
    return [{ op: '>=', version: minor === undefined ? [major + 1, 0, 0] : [major, minor + 1, 0] }];
  }
  if (operator === '<=' && (minor === undefined || patch === undefined)) {
    return [{ op: '<', version: minor === undefined ? [major + 1, 0, 0] : [major, minor + 1, 0] }];
  }
  return [{ op: operator as Comparator['op'], version: low }];
}

function holds(version: Triple, comparator: Comparator): boolean {
  const order = compare(version, comparator.version);
  switch (comparator.op) {
    case '>=':
      return order >= 0;
    case '>':
      return order > 0;
    case '<=':
      return order <= 0;
    case '<':
      return order < 0;
    case '=':
      return order === 0;
  }
}

/**
 * Whether `version` (e.g. `0.1.0`) satisfies `range`; `undefined` when the
 * range or version uses syntax this module does not read (hyphen ranges, tags).
 */
export function satisfiesRange(version: string, range: string): boolean | undefined {
  const parsedVersion = parsePartial(version.trim());
  if (!parsedVersion || parsedVersion.includes(undefined)) return undefined;
  const target = fill(parsedVersion);
  let known = true;
  for (const alternative of range.split('||')) {
    // `>= 1.2` is one term: glue operators to their version before splitting on spaces.
    const terms = alternative.trim().replace(/(\^|~>?|>=|<=|>|<|=)\s+/g, '$1').split(/\s+/).filter((t) => t !== '');
    if (terms.includes('-')) {
      known = false;
      continue;
    }
    const comparators: Comparator[] = [];
    let readable = true;
    for (const term of terms) {
      const expanded = expand(term);
      if (!expanded) {
        readable = false;
        break;
      }
      comparators.push(...expanded);
    }
    if (!readable) {
      known = false;
      continue;
    }
    if (comparators.every((comparator) => holds(target, comparator))) return true;
  }
  return known ? false : undefined;
}
