/** Table shapes: what `shape: relational` makes of nested records. */
import { describe, expect, it } from 'vitest';
import { childTableName, shapeBatch } from '../../../connectors/destinations/_export/shape.js';
import { conversationRecord } from './helpers.js';

describe('shapeBatch', () => {
  it('json: one table, records as they are', () => {
    const records = [conversationRecord('c1', 2)];
    expect(shapeBatch(records, 'conversations', 'conversationId', 'json')).toEqual([{ table: 'conversations', key: 'conversationId', rows: records }]);
  });

  it('relational: arrays of objects become child tables keyed by parent and position', () => {
    const [parent, participants, transcript] = shapeBatch([conversationRecord('c1', 2), { ...conversationRecord('c2', 0), transcript: null }], 'conversations', 'conversationId', 'relational');
    expect(parent).toEqual({
      table: 'conversations',
      key: 'conversationId',
      rows: [
        { conversationId: 'c1', title: 'Call c1', startTime: '2024-03-01T09:00:00.000Z' },
        { conversationId: 'c2', title: 'Call c2', startTime: '2024-03-01T09:00:00.000Z' },
      ],
    });
    expect(participants!.table).toBe('conversation_participants');
    expect(participants!.replace).toEqual({ column: 'conversationId', ids: ['c1', 'c2'] });
    expect(participants!.rows[1]).toEqual({ name: 'Bob', email: null, attended: false, conversationId: 'c1', position: 1 });
    // A null transcript still replaces (removes) the parent's old lines.
    expect(transcript!.replace).toEqual({ column: 'conversationId', ids: ['c1', 'c2'] });
    expect(transcript!.rows.map((row) => [row.conversationId, row.position, row.speaker])).toEqual([
      ['c1', 0, 'Ann'],
      ['c1', 1, 'Bob'],
    ]);
  });

  it('relational: a row\'s fields become columns, prefixed where a top-level field has the name', () => {
    const row = { rowId: 'r1', name: 'Deal', fields: { name: { value: 'x', fieldType: 'string', label: null }, amount: { value: 5, fieldType: 'number', label: 'Amount' } } };
    expect(shapeBatch([row], 'rows', 'rowId', 'relational')[0]!.rows).toEqual([{ rowId: 'r1', name: 'Deal', fields_name: 'x', amount: 5 }]);
  });

  it('names child tables after the singular parent table', () => {
    expect(childTableName('deals', 'contacts')).toBe('deal_contacts');
    expect(childTableName('calls', 'transcript')).toBe('call_transcript');
  });
});
