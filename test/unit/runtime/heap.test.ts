import { describe, expect, it } from 'vitest';
import { DEFAULT_HEAP_GROWING_PERCENT, applyHeapDefaults } from '../../../src/runtime/heap.js';

describe('applyHeapDefaults', () => {
  const run = (env: NodeJS.ProcessEnv, execArgv: string[] = []) => {
    const set: string[] = [];
    const applied = applyHeapDefaults(env, execArgv, (flags) => set.push(flags));
    return { applied, set };
  };

  const NO_PRETENURING = '--no-allocation-site-pretenuring';

  it("sets ferry's growth factor and turns pretenuring off by default", () => {
    expect(run({})).toEqual({ applied: DEFAULT_HEAP_GROWING_PERCENT, set: [NO_PRETENURING, `--heap-growing-percent=${DEFAULT_HEAP_GROWING_PERCENT}`] });
  });

  it('takes FERRY_HEAP_GROWING_PERCENT, and 0 leaves the growth to V8', () => {
    expect(run({ FERRY_HEAP_GROWING_PERCENT: '120' }).set).toEqual([NO_PRETENURING, '--heap-growing-percent=120']);
    expect(run({ FERRY_HEAP_GROWING_PERCENT: '0' })).toEqual({ applied: undefined, set: [NO_PRETENURING] });
    expect(run({ FERRY_HEAP_GROWING_PERCENT: 'lots' })).toEqual({ applied: undefined, set: [NO_PRETENURING] });
  });

  it('leaves a growth factor or a pretenuring choice given on the command line or in NODE_OPTIONS', () => {
    expect(run({}, ['--heap-growing-percent=30']).set).toEqual([NO_PRETENURING]);
    expect(run({ NODE_OPTIONS: '--max-old-space-size=512 --heap_growing_percent=20' }).set).toEqual([NO_PRETENURING]);
    expect(run({}, ['--allocation-site-pretenuring']).set).toEqual([`--heap-growing-percent=${DEFAULT_HEAP_GROWING_PERCENT}`]);
    expect(run({ NODE_OPTIONS: '--no-allocation-site-pretenuring --heap-growing-percent=20' }).set).toEqual([]);
  });
});
