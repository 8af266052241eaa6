import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../../src/emulator/index.js';
import { apiFor, conversation, createSource } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'ferry-emulator-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('emulator: persistence', () => {
  it('has stored every write it acknowledged, concurrent ones sharing a commit included', async () => {
    const db = join(dir, 'concurrent.db');
    const first = await startEmulator({ db });
    const api = apiFor(first, first.devKey ?? '');
    const sourceId = await createSource(api, 'concurrent');
    const pushed = await Promise.all(Array.from({ length: 24 }, (_, i) => api.post('/v1/conversations', conversation(sourceId, `c-${i}`))));
    expect(pushed.map((r) => r.status)).toEqual(pushed.map(() => 201));
    // Read from a second connection while the first still runs: acknowledged means committed.
    const reader = await startEmulator({ db });
    try {
      const other = apiFor(reader, reader.devKey ?? '');
      for (const res of pushed) expect((await other.get(`/v1/conversations/${res.body.recordId}`)).status).toBe(200);
    } finally {
      await reader.close();
      await first.close();
    }
  });

  it('keeps data and the dev key across a restart on the same file', async () => {
    const db = join(dir, 'nested', 'emulator.db');
    const first = await startEmulator({ db });
    const api = apiFor(first, first.devKey ?? '');
    const sourceId = await createSource(api, 'persisted');
    const pushed = await api.post('/v1/conversations', conversation(sourceId, 'p-1'));
    expect(pushed.status).toBe(201);
    await first.close();

    const second = await startEmulator({ db, askDelayMs: 10 });
    try {
      expect(second.devKey).toBe(first.devKey);
      expect(second.orgId).toBe(first.orgId);
      const again = apiFor(second, second.devKey ?? '');
      expect((await again.get(`/v1/sources/${sourceId}`)).body.name).toBe('persisted');
      const got = await again.get(`/v1/conversations/${pushed.body.recordId}`);
      expect(got.status).toBe(200);
      expect(got.body.title).toBe('Call p-1');
      // The upsert key survives too.
      expect((await again.post('/v1/conversations', conversation(sourceId, 'p-1'))).body.status).toBe('updated');
      // So does the search index behind the ask assistant.
      const asked = await again.post('/v1/ask-assistant', { message: 'renewal price' });
      expect(asked.body.output).toContain(`[conversation ${pushed.body.recordId}]`);
    } finally {
      await second.close();
    }
  });

  it('reads a keys file from disk and starts fresh in memory', async () => {
    const keysPath = join(dir, 'keys.json');
    const orgId = randomUUID();
    writeFileSync(keysPath, JSON.stringify({ sk_live_file: { orgId, scopes: ['read'] } }));
    const emu = await startEmulator({ keys: keysPath });
    try {
      expect(emu.devKey).toBeUndefined();
      const health = await apiFor(emu, 'sk_live_file').get('/v1/health');
      expect(health.body).toEqual({ status: 'ok', org_id: orgId, scopes: ['read'] });
    } finally {
      await emu.close();
    }
    await expect(startEmulator({ keys: { bad: { orgId: 'x', scopes: [] } } })).rejects.toThrow(/keys/);
  });
});
