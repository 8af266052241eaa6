/**
 * `ferry run --verify`: after a sync, page through the service's read side
 * and count the records it returns for the sync's target, so a user sees what
 * actually landed (private records are never returned to API keys, so a
 * sync pushing `public: false` records will count fewer).
 */
import type { ServiceClient } from '../api/client.js';
import type { LoadedSync } from '../config/index.js';

export async function countVisible(client: ServiceClient, sync: LoadedSync): Promise<number | undefined> {
  const { sources } = await client.listSources({ name: sync.target.source.name });
  const source = sources.find((s) => s.name === sync.target.source.name);
  if (!source) return 0;
  let count = 0;
  switch (sync.target.type) {
    case 'conversation':
      for await (const _ of client.iterateConversations({ sourceId: source.id, limit: 50 })) count++;
      return count;
    case 'message':
      for await (const _ of client.iterateMessages({ sourceId: source.id, limit: 50 })) count++;
      return count;
    case 'document':
      for await (const _ of client.iterateDocuments({ sourceId: source.id, limit: 50 })) count++;
      return count;
    case 'row': {
      const { objectTypes } = await client.listObjectTypes({ sourceId: source.id });
      const objectType = objectTypes.find((t) => t.name === sync.target.objectType?.name);
      if (!objectType) return 0;
      for await (const _ of client.iterateRows({ sourceId: source.id, objectTypeId: objectType.id, limit: 50 })) count++;
      return count;
    }
  }
}
