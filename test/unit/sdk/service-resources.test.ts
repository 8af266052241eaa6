/** The SDK's one description of the service's read side agrees with src/api's zod shapes of the same endpoints. */
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { ENDPOINTS } from '../../../src/api/endpoints.js';
import { RESOURCES as EXPORT_RESOURCES } from '../../../src/export/resources.js';
import { SERVICE_RESOURCES, SERVICE_RESOURCE_NAMES } from '../../../src/sdk/index.js';

const lists = {
  conversations: 'listConversations',
  messages: 'listMessages',
  rows: 'listRows',
  documents: 'listDocuments',
  deals: 'listDeals',
  accounts: 'listAccounts',
} as const;

describe('SERVICE_RESOURCES', () => {
  it.each(SERVICE_RESOURCE_NAMES)('%s matches the ENDPOINTS table (path, items key, filters, time window)', (name) => {
    const endpoint = ENDPOINTS[lists[name]];
    const spec = SERVICE_RESOURCES[name];
    expect(spec.path).toBe(endpoint.path);
    expect(spec.itemsKey).toBe(endpoint.itemsKey);
    const query = endpoint.query as unknown as z.ZodObject;
    const params = Object.keys(query.shape).filter((key) => key !== 'cursor' && key !== 'limit');
    expect([...spec.filters].sort()).toEqual(params.sort());
    for (const filter of Object.values(spec.lowerBound)) expect(spec.filters).toContain(filter);
    if (spec.window) {
      expect(spec.filters).toContain(spec.window.after);
      expect(spec.filters).toContain(spec.window.before);
      // nullable says what the answer's zod shape says of the field.
      const page = endpoint.response as unknown as z.ZodObject;
      const item = (page.shape[spec.itemsKey] as unknown as z.ZodArray<z.ZodObject>).element;
      expect(item.shape[spec.window.field]!.safeParse(null).success).toBe(spec.window.nullable);
    }
    // The export reads the same description.
    expect(EXPORT_RESOURCES[name].read).toBe(spec);
    expect(EXPORT_RESOURCES[name].key).toBe(spec.idField);
  });
});
