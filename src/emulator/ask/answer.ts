/**
 * The ask assistant's answer: extractive. It searches the organization's
 * public records (FTS5) for the question's words, quotes the best passages
 * and cites the records they come from as `[<kind> <recordId>]`.
 */
import type { SearchHit, SearchIndex } from '../store/search-index.js';
import { matchExpression, searchTerms } from '../search/query.js';

export type AskOutcome = { status: 'completed'; output: string } | { status: 'failed'; error: string };

const MAX_RECORDS = 3;
const EXCERPT_CHARS = 320;

/** The lines or sentences of a passage that carry most of the terms, trimmed to EXCERPT_CHARS. */
export function excerpt(body: string, terms: readonly string[]): string {
  const pieces = body.split(/\n+|(?<=[.!?])\s+/).map((p) => p.trim()).filter(Boolean);
  if (pieces.length === 0) return '';
  const score = (piece: string) => {
    const lower = piece.toLowerCase();
    return terms.reduce((n, t) => n + (lower.includes(t) ? 1 : 0), 0);
  };
  let best = 0;
  pieces.forEach((piece, i) => {
    if (score(piece) > score(pieces[best] ?? '')) best = i;
  });
  let text = pieces[best] ?? '';
  // Add the following piece for context when the best one is short.
  const next = pieces[best + 1];
  if (text.length < 120 && next) text = `${text} ${next}`;
  return text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS - 1).trimEnd()}…` : text;
}

export function answerQuestion(index: SearchIndex, orgId: string, question: string): AskOutcome {
  if (index.count(orgId) === 0) {
    return { status: 'failed', error: 'the organization has no readable records to answer from' };
  }
  const terms = searchTerms(question);
  const match = matchExpression(terms);
  const hits: SearchHit[] = match ? index.search(orgId, match, 50) : [];
  const best: SearchHit[] = [];
  for (const hit of hits) {
    if (best.some((b) => b.recordId === hit.recordId)) continue;
    best.push(hit);
    if (best.length === MAX_RECORDS) break;
  }
  if (best.length === 0) {
    return {
      status: 'completed',
      output: `I could not find anything about "${question}" in the organization's records.`,
    };
  }
  const lines = best.map((hit, i) => {
    const title = hit.title ? ` (${hit.title})` : '';
    const quote = excerpt(hit.body, terms) || hit.title;
    return `${i + 1}. "${quote}"${title} [${hit.kind} ${hit.recordId}]`;
  });
  return {
    status: 'completed',
    output: `Here is what the organization's records say about "${question}":\n\n${lines.join('\n')}`,
  };
}
