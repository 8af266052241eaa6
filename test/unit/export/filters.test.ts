import { describe, expect, it } from 'vitest';
import { checkFilters, resolveFilters } from '../../../src/export/filters.js';
import { RESOURCES } from '../../../src/export/resources.js';
import type { ExportService } from '../../../src/export/resources.js';

describe('checkFilters', () => {
  it('accepts the list endpoint’s own parameters and name filters', () => {
    const { filters, issues } = checkFilters(RESOURCES.rows, { source: 'crm', objectType: 'deal', createdAfter: '2024-01-01T00:00:00Z', name: 'acme' });
    expect(issues).toEqual([]);
    expect(filters).toEqual({ query: { createdAfter: '2024-01-01T00:00:00Z', name: 'acme' }, names: { source: 'crm', objectType: 'deal' } });
  });

  it('reports unknown keys with the valid ones, managed keys, bad values and doubled filters', () => {
    const { issues } = checkFilters(RESOURCES.deals, { stages: 'won', limit: 10, closed: 'maybe', amountMin: 'lots', objectType: 'x' });
    expect(issues.map((i) => i.key)).toEqual(['stages', 'limit', 'closed', 'amountMin', 'objectType']);
    expect(issues[0]!.message).toContain('lastActivityAfter');
    expect(issues[1]!.message).toContain('set by ferry');
    expect(issues[4]!.message).toBe('deals cannot be filtered by objectType');
    const doubled = checkFilters(RESOURCES.conversations, { source: 'calls', sourceId: 'gong' });
    expect(doubled.issues.map((i) => i.message)).toEqual(['give either source (a name) or sourceId, not both']);
  });

  it('checks timestamps the way the service does', () => {
    expect(checkFilters(RESOURCES.conversations, { startedAfter: 'yesterday' }).issues).toHaveLength(1);
    expect(checkFilters(RESOURCES.conversations, { startedAfter: '2024-03-01T09:00:00Z' }).issues).toEqual([]);
  });
});

describe('resolveFilters', () => {
  const service = {
    listSources: async () => ({ sources: [
      { id: '11111111-1111-4111-8111-111111111111', name: 'crm-archive', displayName: 'A', createdAt: '', updatedAt: '' },
      { id: '22222222-2222-4222-8222-222222222222', name: 'crm', displayName: 'CRM', createdAt: '', updatedAt: '' },
    ] }),
    listObjectTypes: async (query?: { sourceId?: string }) => ({ objectTypes: [
      { id: '33333333-3333-4333-8333-333333333333', sourceId: '22222222-2222-4222-8222-222222222222', name: 'deal', displayName: 'Deal', fieldDefinitions: [], createdAt: '', updatedAt: '' },
      { id: '44444444-4444-4444-8444-444444444444', sourceId: '11111111-1111-4111-8111-111111111111', name: 'deal', displayName: 'Deal', fieldDefinitions: [], createdAt: '', updatedAt: '' },
    ].filter((t) => !query?.sourceId || t.sourceId === query.sourceId) }),
  } as unknown as ExportService;

  it('turns names into ids, matching the source name exactly', async () => {
    const query = await resolveFilters(service, { query: { name: 'x' }, names: { source: 'crm', objectType: 'deal' } }, 'e');
    expect(query).toEqual({ name: 'x', sourceId: '22222222-2222-4222-8222-222222222222', objectTypeId: '33333333-3333-4333-8333-333333333333' });
  });

  it('refuses unknown and ambiguous names', async () => {
    await expect(resolveFilters(service, { query: {}, names: { source: 'nope' } }, 'e')).rejects.toMatchObject({ code: 'FERRY_CONFIG_INVALID' });
    await expect(resolveFilters(service, { query: {}, names: { objectType: 'deal' } }, 'e')).rejects.toThrow(/2 object types/);
  });
});
