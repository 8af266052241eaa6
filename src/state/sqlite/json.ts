/**
 * JSON columns. Source records may hold bigints and bytes, which
 * JSON.stringify refuses or bloats; they are stored as text so a dead-letter
 * entry never fails to save because of the record it describes.
 */

export function toJson(value: unknown): string | null {
  if (value === undefined) return null;
  return JSON.stringify(value, function replace(this: Record<string, unknown>, key: string, converted: unknown) {
    const original = this[key];
    if (typeof original === 'bigint') return original.toString();
    if (original instanceof Uint8Array) return `base64:${Buffer.from(original).toString('base64')}`;
    return converted;
  });
}

export function fromJson(text: string | null): unknown {
  return text === null ? null : (JSON.parse(text) as unknown);
}
