import { afterEach, describe, expect, it } from 'vitest';
import { withRedactedWrites } from '../../../src/runtime/redacted-state.js';
import { clearSecrets, registerSecret } from '../../../src/sdk/redact.js';
import { openStateStore } from '../../../src/state/index.js';
import { emptyCounts } from '../../../src/state/index.js';

const SECRET = 'pw-0123456789';

afterEach(() => clearSecrets());

describe('withRedactedWrites', () => {
  it('masks secrets in dead-letter entries and run errors, and passes everything else through', async () => {
    registerSecret(SECRET);
    const store = withRedactedWrites(await openStateStore('sqlite::memory:'));
    try {
      const runId = await store.startRun('s');
      await store.recordFailure({
        sync: 's',
        runId,
        remoteId: 'r1',
        origin: 'data.csv:2',
        kind: 'invalid',
        reason: `bad value ${SECRET}`,
        status: null,
        errorBody: { echo: SECRET },
        body: { name: SECRET },
        sourceRecord: { note: `x ${SECRET}`, auth: 'Bearer not-a-config-secret' },
      });
      await store.finishRun(runId, { status: 'failed', counts: emptyCounts(), error: `table ${SECRET} missing` });
      const [failure] = await store.failures({ sync: 's' });
      expect(JSON.stringify(failure)).not.toContain(SECRET);
      expect(failure).toMatchObject({ origin: 'data.csv:2', sourceRecord: { note: 'x ***', auth: 'Bearer not-a-config-secret' }, body: { name: '***' } });
      expect(failure?.reason).toContain('masked in the stored copy');
      expect((await store.lastRun('s'))?.error).toBe('table *** missing');
    } finally {
      await store.close();
    }
  });
});
