import { describe, expect, it } from 'vitest';
import { Watermark } from '../../../src/export/watermark.js';

const NOW = Date.parse('2025-01-01T00:00:00Z');

describe('Watermark', () => {
  it('has no bound on a first run and ends at the newest value with its ids as ties', () => {
    const mark = new Watermark('startTime', undefined, NOW);
    expect(mark.bound()).toBeUndefined();
    mark.observe({ startTime: '2024-05-01T10:00:00Z' }, 'a');
    mark.observe({ startTime: '2024-06-01T10:00:00Z' }, 'b');
    mark.observe({ startTime: '2024-06-01T10:00:00.000Z' }, 'c');
    mark.observe({ startTime: '2024-04-01T10:00:00Z' }, 'd');
    expect(mark.position()).toEqual({ value: '2024-06-01T10:00:00Z', key: '["b","c"]' });
  });

  it('asks from the stored value and skips only the records already exported at it', () => {
    const mark = new Watermark('startTime', { value: '2024-06-01T10:00:00Z', key: '["b","c"]' }, NOW);
    expect(mark.bound()).toBe('2024-06-01T10:00:00.000Z');
    expect(mark.seen({ startTime: '2024-06-01T10:00:00Z' }, 'b')).toBe(true);
    expect(mark.seen({ startTime: '2024-06-01T10:00:00Z' }, 'e')).toBe(false);
    expect(mark.seen({ startTime: '2024-06-02T10:00:00Z' }, 'b')).toBe(false);
  });

  it('adds new ties at the same value and keeps the stored position when nothing is newer', () => {
    const mark = new Watermark('t', { value: '2024-06-01T10:00:00Z', key: '["b"]' }, NOW);
    expect(mark.position()).toEqual({ value: '2024-06-01T10:00:00Z', key: '["b"]' });
    mark.observe({ t: '2024-06-01T10:00:00Z' }, 'e');
    expect(mark.position()).toEqual({ value: '2024-06-01T10:00:00Z', key: '["b","e"]' });
  });

  it('never passes the run start and ignores records without a value', () => {
    const mark = new Watermark('lastActivityDate', undefined, NOW);
    mark.observe({ lastActivityDate: '2030-01-01T00:00:00Z' }, 'future');
    mark.observe({ lastActivityDate: null }, 'none');
    expect(mark.position()).toBeUndefined();
    mark.observe({ lastActivityDate: '2024-12-31T00:00:00Z' }, 'x');
    expect(mark.position()?.value).toBe('2024-12-31T00:00:00Z');
  });
});
