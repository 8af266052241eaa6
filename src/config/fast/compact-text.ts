/**
 * The config's text in V8's compact form. V8 holds a string one byte a
 * character when every character fits, and two otherwise; a string cut from
 * a longer one keeps the longer one's form. The YAML parser cuts every name
 * and value from the file's text, so one character past Latin-1 anywhere in
 * the file (a dash in a comment or in an expression) made every sync name,
 * field name and map key two bytes a character, and with them everything
 * built from them for every record: the body's JSON (hashed, then encoded
 * for the socket), the ledger's keys and rows, the commit thread's messages
 * (src/state/sqlite/threaded/commit-message.ts), each twice the bytes.
 *
 * The plain path is the parsed text as it is: the same characters, so the
 * config means the same either way. Figures: docs/performance.md.
 */

import { visit, type Document } from 'yaml';

/** A character V8 cannot hold in one byte: past Latin-1 (surrogate halves included). */
const BEYOND_LATIN1 = /[\u0100-\uffff]/;

/**
 * Puts every string scalar of a parsed document (keys included) in the
 * one-byte form where its characters allow it. Before the document becomes
 * plain data, not after: a key is interned when it first names a property,
 * and later copies of the same text then get that interned string, in
 * whatever form it was made.
 */
export function compactScalars(document: Document.Parsed): void {
  visit(document, {
    Scalar(_key, node) {
      if (typeof node.value === 'string') node.value = compactString(node.value);
    },
  });
}

/** `text` one byte a character when it can be; as it is otherwise (or when it is already). */
export function compactString(text: string): string {
  if (text.length === 0 || BEYOND_LATIN1.test(text)) return text;
  // A Latin-1 round trip is exact for these characters, and Node makes the result a one-byte string.
  return Buffer.from(text, 'latin1').toString('latin1');
}
