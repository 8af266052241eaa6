/** Names ferry makes for exported columns and tables (docs/exports.md#analyst-conventions). */

/**
 * A name in snake_case: a lower-case letter or digit before an upper-case
 * one starts a word (`conversationId` → `conversation_id`, `HTTPStatus` →
 * `http_status`), anything but letters and digits becomes one `_`, leading
 * underscores stay (`_ferry_load_id`), trailing ones go.
 */
export function snakeCase(name: string): string {
  const lead = /^_*/.exec(name)![0];
  const words = name
    .slice(lead.length)
    .replace(/(\p{Lu}+)(\p{Lu}\p{Ll})/gu, '$1_$2')
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1_$2')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '_')
    .replace(/^_+|_+$/g, '');
  return lead + words || '_';
}
