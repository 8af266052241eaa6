/**
 * Writing CSV (RFC 4180): a field is quoted when it holds a delimiter, quote,
 * line break or surrounding space; quotes inside are doubled. Lines end in
 * "\n", which every CSV reader accepts.
 */
import type { Cell } from './flatten.js';

export function csvField(cell: Cell | undefined): string {
  if (cell === null || cell === undefined) return '';
  const text = typeof cell === 'string' ? cell : String(cell);
  return /[",\r\n]|^\s|\s$/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csvLine(cells: readonly (Cell | undefined)[]): string {
  return `${cells.map(csvField).join(',')}\n`;
}
