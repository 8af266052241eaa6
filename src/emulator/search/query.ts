/** A natural-language question → an FTS5 MATCH expression over its meaningful words. */

const STOPWORDS = new Set(
  `a about above after again against all am an and any are as at be because been before being below between both but by can
  could did do does doing down during each few for from further had has have having he her here hers herself him himself his how
  i if in into is it its itself just me more most my myself no nor not now of off on once only or other our ours ourselves out
  over own same she should so some such than that the their theirs them themselves then there these they this those through to
  too under until up very was we were what when where which while who whom why will with would you your yours yourself
  yourselves tell show give list find please summarize summarise say said says know get got any anything everything something
  did does done been our us me`.split(/\s+/),
);

/** The question's search terms: lower-cased words, stopwords dropped, in order, without repeats. */
export function searchTerms(question: string): string[] {
  const words = question.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}'_-]*/gu) ?? [];
  const cleaned = words.map((w) => w.replace(/['_-]+$/g, '').replace(/'s$/, '')).filter((w) => w.length > 1);
  const meaningful = cleaned.filter((w) => !STOPWORDS.has(w));
  return [...new Set(meaningful.length > 0 ? meaningful : cleaned)].slice(0, 16);
}

/** OR of quoted terms: any matching passage counts, bm25 ranks those matching more. */
export function matchExpression(terms: readonly string[]): string | undefined {
  if (terms.length === 0) return undefined;
  return terms.map((t) => `"${t.replace(/"/g, '""')}"`).join(' OR ');
}
