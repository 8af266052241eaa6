import { describe, expect, it } from 'vitest';
import { withTargetDefaults } from '../../../src/config/index.js';
import type { LoadedSync } from '../../../src/config/index.js';

function sync(target: Partial<LoadedSync['target']>, extra: Partial<LoadedSync> = {}): LoadedSync {
  return {
    name: 's',
    source: { type: 'x' },
    deletes: 'ignore',
    maxDeletePercent: 20,
    target: { type: 'message', source: { name: 'mail' }, newFields: 'evolve', ...target },
    file: '/p/ferry.yaml',
    baseDir: '/p',
    keyPath: ['syncs', 0],
    locate: () => ({ file: '/p/ferry.yaml', line: 1, column: 1 }),
    ...extra,
  };
}

const DEFAULTS = { map: { id: 'messageId', body: 'body', sender: { email: 'from' }, public: true } };

describe('withTargetDefaults', () => {
  it('uses the default mapping when the sync writes no map', () => {
    const result = withTargetDefaults(sync({}), DEFAULTS, 'eml');
    expect('sync' in result && result.sync.target.map).toEqual(DEFAULTS.map);
  });

  it("lays the user's keys over the default's, each replacing the default's whole value", () => {
    const result = withTargetDefaults(sync({ map: { sender: { email: 'replyTo' }, threadId: 'thread' } }), DEFAULTS, 'eml');
    expect('sync' in result && result.sync.target.map).toEqual({ id: 'messageId', body: 'body', sender: { email: 'replyTo' }, public: true, threadId: 'thread' });
  });

  it("takes the default group unless the sync has its own", () => {
    const grouped = { ...DEFAULTS, group: { by: ['channel', 'day'], sorted: true } };
    const own = withTargetDefaults(sync({}), grouped, 'slack-export');
    expect('sync' in own && own.sync.group).toEqual({ by: ['channel', 'day'], sorted: true });
    const overridden = withTargetDefaults(sync({}, { group: { by: 'thread' } }), grouped, 'slack-export');
    expect('sync' in overridden && overridden.sync.group).toEqual({ by: 'thread' });
  });

  it('does not let a run change the connector\'s defaults', () => {
    const frozen = Object.freeze({ map: Object.freeze({ sender: Object.freeze({ email: 'from' }) }) });
    const result = withTargetDefaults(sync({}), frozen, 'eml');
    if (!('sync' in result)) throw new Error('expected a sync');
    (result.sync.target.map.sender as Record<string, unknown>).email = 'changed';
    expect(frozen.map.sender.email).toBe('from');
  });

  it('says what is missing when there is neither a map nor a default', () => {
    expect(withTargetDefaults(sync({ type: 'row' }), undefined, 'csv')).toEqual({ missing: expect.stringMatching(/target.map is required: the csv source has no default mapping for target type row/) });
    expect('sync' in withTargetDefaults(sync({ map: { id: 'id' } }), undefined, 'csv')).toBe(true);
  });
});
