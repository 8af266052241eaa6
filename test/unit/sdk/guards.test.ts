import { describe, expect, it } from 'vitest';
import { codeOf } from '../../../src/sdk/guards.js';

describe('codeOf', () => {
  it('gives an error\'s code as text, whatever its type', () => {
    expect(codeOf(Object.assign(new Error('no table'), { code: '42P01' }))).toBe('42P01');
    expect(codeOf(Object.assign(new Error('errno'), { code: -111 }))).toBe('-111');
  });

  it('is undefined for an error without a code, and for anything thrown that is not an Error', () => {
    expect(codeOf(new Error('plain'))).toBeUndefined();
    expect(codeOf(Object.assign(new Error('nulled'), { code: null }))).toBeUndefined();
    expect(codeOf({ code: 'ECONNREFUSED' })).toBeUndefined();
    expect(codeOf('ECONNREFUSED')).toBeUndefined();
  });
});
