/**
 * Arrays of at most `size` items from an iterable, taken as they are asked
 * for: a destination loads a long list (the live keys of `deletes: mirror`)
 * a chunk at a time instead of spreading it into one array.
 *
 * @param items any iterable; it is read once, lazily.
 * @param size items per chunk (the last may hold fewer); at least 1.
 */
export function* inChunks<T>(items: Iterable<T>, size: number): Generator<T[]> {
  if (!(size >= 1)) throw new RangeError(`inChunks: size must be at least 1, got ${size}`);
  let chunk: T[] = [];
  for (const item of items) {
    chunk.push(item);
    if (chunk.length >= size) {
      yield chunk;
      chunk = [];
    }
  }
  if (chunk.length > 0) yield chunk;
}
