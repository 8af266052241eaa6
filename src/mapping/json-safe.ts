/**
 * Source records may carry values JSON (and so JSONata, SQLite spill rows and
 * request bodies) cannot represent. They are converted once, before mapping,
 * so every later step sees plain JSON.
 */

/**
 * Convert a source value to plain JSON: bigint → number when it is a safe
 * integer, else its decimal text (no precision is lost); Date → ISO 8601
 * (an invalid Date → null); bytes → base64; `undefined` object members are
 * dropped. Values that need no conversion are returned as they are, without
 * copying, because most records (CSV rows, JSON lines) are already plain.
 */
export function toJsonSafe(value: unknown): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      // JSON has no NaN or Infinity; JSON.stringify would silently write null.
      return Number.isFinite(value) ? value : null;
    case 'bigint':
      return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
        ? Number(value)
        : value.toString();
    case 'undefined':
      return undefined;
    case 'object':
      return value === null ? null : convertObject(value);
    default:
      // Functions and symbols have no JSON form.
      return undefined;
  }
}

function convertObject(value: object): unknown {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64');
  if (Array.isArray(value)) return convertArray(value);
  return convertRecord(value as Record<string, unknown>);
}

function convertArray(items: readonly unknown[]): unknown[] {
  let out: unknown[] | undefined;
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    const converted = toJsonSafe(item);
    // Inside arrays JSON writes undefined as null; do the same explicitly.
    const next = converted === undefined ? null : converted;
    if (out === undefined && next !== item) out = items.slice(0, i);
    if (out !== undefined) out.push(next);
  }
  return out ?? (items as unknown[]);
}

function convertRecord(record: Record<string, unknown>): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  const keys = Object.keys(record);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    const item = record[key];
    const converted = toJsonSafe(item);
    if (out === undefined && (converted !== item || converted === undefined)) {
      out = {};
      for (let j = 0; j < i; j++) {
        const earlier = keys[j] as string;
        out[earlier] = record[earlier];
      }
    }
    if (out !== undefined && converted !== undefined) out[key] = converted;
  }
  return out ?? record;
}
