/**
 * A YAML file parsed with its source positions, so any key path can be
 * traced back to a line and column — including paths that stop existing
 * part-way (a missing key points at its nearest parent).
 */
import { LineCounter, isAlias, isMap, isScalar, isSeq, parseAllDocuments, parseDocument } from 'yaml';
import type { Document, Node } from 'yaml';
import type { ConfigIssue, SourcePosition } from './issues.js';

export interface YamlSource {
  file: string;
  text: string;
  /** Undefined when the text did not parse. */
  document: Document.Parsed | undefined;
  lineCounter: LineCounter;
}

export type KeyPath = readonly (string | number)[];

/** Parse a file's text; YAML errors (and extra documents) come back as issues. */
export function parseYaml(file: string, text: string): { source: YamlSource; issues: ConfigIssue[] } {
  const lineCounter = new LineCounter();
  const options = { lineCounter, prettyErrors: false, uniqueKeys: true } as const;
  const parsed = parseAllDocuments(text, options);
  // An empty file (or only comments) is an empty document, not an error.
  const documents = Array.isArray(parsed) && parsed.length > 0 ? parsed : [parseDocument(text, options)];
  const first = documents[0];
  const source: YamlSource = { file, text, document: first, lineCounter };
  const issues: ConfigIssue[] = [];
  // After the first syntax error the parser's later complaints are mostly
  // echoes of it: report the first, and how many followed.
  const errors = documents.flatMap((document) => document.errors);
  const firstError = errors[0];
  if (firstError) {
    const more = errors.length - 1;
    const tail = more > 0 ? ` (and ${more} more YAML ${more === 1 ? 'error' : 'errors'} after it, probably caused by it)` : '';
    issues.push({
      ...positionAt(source, firstError.pos[0]),
      path: '',
      message: `YAML syntax: ${firstLine(firstError.message)}${tail}`,
    });
  }
  const second = documents[1];
  if (second && !firstError) {
    issues.push({
      ...positionAt(source, second.range[0]),
      path: '',
      message: 'a config file holds one YAML document; remove the extra "---" document (or move it into its own file)',
    });
  }
  if (issues.length > 0) source.document = undefined;
  return { source, issues };
}

function firstLine(message: string): string {
  return message.split('\n')[0] ?? message;
}

export function positionAt(source: YamlSource, offset: number): SourcePosition {
  const { line, col } = source.lineCounter.linePos(offset);
  return { file: source.file, line, column: col };
}

function startOf(node: Node | null | undefined): number | undefined {
  return node?.range?.[0];
}

function isEmptyScalar(node: unknown): boolean {
  return isScalar(node) && node.value === null && (node.source === undefined || node.source === '');
}

/**
 * Where a key path sits in the file. With `atKey`, a path ending at a mapping
 * key points at the key itself (for "unknown key"), otherwise at its value.
 * A path that leaves the document points at the deepest part that exists:
 * the key of the mapping a missing key belongs in.
 */
export function locatePath(source: YamlSource, path: KeyPath, options: { atKey?: boolean } = {}): SourcePosition {
  const document = source.document;
  if (!document) return { file: source.file, line: 1, column: 1 };
  let node: unknown = document.contents;
  let offset = startOf(document.contents) ?? 0;
  for (let i = 0; i < path.length; i++) {
    const segment = path[i];
    const last = i === path.length - 1;
    if (isAlias(node)) node = node.resolve(document);
    if (isMap(node)) {
      const pair = node.items.find((item) => {
        const key: unknown = item.key;
        return (isScalar(key) ? String(key.value) : String(key)) === String(segment);
      });
      if (!pair) break;
      const keyOffset = startOf(pair.key as Node | null);
      const value = pair.value as Node | null;
      const valueOffset = isEmptyScalar(value) ? undefined : startOf(value);
      offset = (last && options.atKey ? keyOffset : (valueOffset ?? keyOffset)) ?? offset;
      node = value;
      // A missing child is reported at the key of the mapping it belongs in.
      if (!last && keyOffset !== undefined && !childExists(node, path[i + 1], document)) {
        offset = keyOffset;
        break;
      }
      continue;
    }
    if (isSeq(node)) {
      const index = typeof segment === 'number' ? segment : Number(segment);
      const item = Number.isInteger(index) ? (node.items[index] as Node | undefined) : undefined;
      if (!item) break;
      offset = startOf(item) ?? offset;
      node = item;
      continue;
    }
    break;
  }
  return positionAt(source, offset);
}

function childExists(node: unknown, segment: string | number | undefined, document: Document.Parsed): boolean {
  if (segment === undefined) return true;
  const target = isAlias(node) ? node.resolve(document) : node;
  if (isMap(target)) {
    return target.items.some((item) => {
      const key: unknown = item.key;
      return (isScalar(key) ? String(key.value) : String(key)) === String(segment);
    });
  }
  if (isSeq(target)) return target.items[Number(segment)] !== undefined;
  return false;
}
