import { describe, expect, it } from 'vitest';
import { DEFAULT_HEAP_GROWING_PERCENT, applyHeapDefaults } from '../../../src/runtime/heap.js';

describe('applyHeapDefaults', () => {
  const run = (env: NodeJS.ProcessEnv, execArgv: string[] = []) => {
    const set: string[] = [];
    const applied = applyHeapDefaults(env, execArgv, (flags) => set.push(flags));
    return { applied, set };
  };

  it("sets ferry's growth factor by default", () => {
    expect(run({})).toEqual({ applied: DEFAULT_HEAP_GROWING_PERCENT, set: [`--heap-growing-percent=${DEFAULT_HEAP_GROWING_PERCENT}`] });
  });

  it('takes FERRY_HEAP_GROWING_PERCENT, and 0 leaves V8 alone', () => {
    expect(run({ FERRY_HEAP_GROWING_PERCENT: '120' }).set).toEqual(['--heap-growing-percent=120']);
    expect(run({ FERRY_HEAP_GROWING_PERCENT: '0' })).toEqual({ applied: undefined, set: [] });
    expect(run({ FERRY_HEAP_GROWING_PERCENT: 'lots' })).toEqual({ applied: undefined, set: [] });
  });

  it('leaves a growth factor given on the command line or in NODE_OPTIONS', () => {
    expect(run({}, ['--heap-growing-percent=30']).set).toEqual([]);
    expect(run({ NODE_OPTIONS: '--max-old-space-size=512 --heap_growing_percent=20' }).set).toEqual([]);
  });
});
