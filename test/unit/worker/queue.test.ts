import { describe, expect, it } from 'vitest';
import type { LoadedConfig } from '../../../src/config/index.js';
import { parseQueueName, queueName, sharedState } from '../../../src/worker/queue.js';

const config = (url: string, schema?: string) => ({ file: '/p/ferry.yaml', state: { url, ...(schema ? { schema } : {}) } }) as unknown as LoadedConfig;

describe('worker queues', () => {
  it('names one queue per sync and per export, and reads the names back', () => {
    expect(queueName('sync', 'crm-deals')).toBe('ferry-sync-crm-deals');
    expect(parseQueueName('ferry-export-nightly_calls')).toEqual({ kind: 'export', name: 'nightly_calls' });
    expect(parseQueueName('__pgboss__send-it')).toBeUndefined();
  });

  it('puts the queue next to the state schema', () => {
    expect(sharedState(config('postgres://u:p@h/db', 'ferry_prod'))).toEqual({ url: 'postgres://u:p@h/db', schema: 'ferry_prod', queueSchema: 'ferry_prod_queue' });
    expect(sharedState(config('postgresql://h/db')).queueSchema).toBe('ferry_queue');
  });

  it('refuses SQLite state, which workers cannot share, and says where to look', () => {
    expect(() => sharedState(config('sqlite:/p/state/ferry.db'))).toThrow(
      expect.objectContaining({ code: 'FERRY_CONFIG_INVALID', where: '/p/ferry.yaml', hint: expect.stringContaining('scale-out.md') }),
    );
  });
});
