import { describe, expect, it } from 'vitest';
import { satisfiesRange } from '../../../src/config/semver-range.js';

describe('satisfiesRange (peerDependencies.ferry)', () => {
  it.each([
    ['0.1.0', '^0.1', true],
    ['0.1.7', '^0.1.0', true],
    ['0.2.0', '^0.1', false],
    ['0.0.3', '^0.0.3', true],
    ['0.0.4', '^0.0.3', false],
    ['1.4.0', '^1.2', true],
    ['2.0.0', '^1.2', false],
    ['1.1.9', '^1.2', false],
    ['0.1.5', '~0.1', true],
    ['0.2.0', '~0.1.0', false],
    ['1.9.0', '~1', true],
    ['0.1.0', '>=0.1', true],
    ['0.0.9', '>=0.1', false],
    ['3.0.0', '>= 1', true],
    ['0.1.0', '0.1.0', true],
    ['0.1.1', '0.1.0', false],
    ['0.1.4', '0.1', true],
    ['0.1.4', '0.x', true],
    ['0.1.0', '*', true],
    ['0.1.0', '>=0.1.0 <0.2.0', true],
    ['0.2.0', '>=0.1.0 <0.2.0', false],
    ['0.1.0', '^1.0 || ^0.1', true],
    ['0.3.0', '^1.0 || ^0.1', false],
    ['0.1.0', '>1', false],
    ['2.0.0', '>1', true],
    ['1.2.9', '<=1.2', true],
    ['1.3.0', '<=1.2', false],
    ['0.1.0', '^0.1.0-beta.1', true],
  ] as const)('%s satisfies %s: %s', (version, range, expected) => {
    expect(satisfiesRange(version, range)).toBe(expected);
  });

  it('says "unknown" for syntax it does not read, rather than guessing', () => {
    expect(satisfiesRange('0.1.0', '0.1.0 - 0.3.0')).toBeUndefined();
    expect(satisfiesRange('0.1.0', 'latest')).toBeUndefined();
    expect(satisfiesRange('0.1.0', 'latest || ^0.1')).toBe(true);
  });
});
