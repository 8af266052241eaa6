import { describe, expect, it } from 'vitest';
import { RecordShaper, SnakeNames, snakeCase } from '../../../src/export/conventions.js';

describe('snakeCase', () => {
  it('splits camelCase and acronyms, keeps leading underscores, folds anything else to one _', () => {
    expect(['conversationId', 'objectTypeName', 'HTTPStatus', 'Close Value', 'already_snake', '_ferry_load_id', 'a.b-c', 'Größe', 'v2Field', '', '__'].map(snakeCase)).toEqual([
      'conversation_id', 'object_type_name', 'http_status', 'close_value', 'already_snake', '_ferry_load_id', 'a_b_c', 'größe', 'v2_field', '_', '__',
    ]);
  });
});

describe('SnakeNames', () => {
  it('keeps two keys that meet on a name apart, the same way whatever their order', () => {
    const names = new SnakeNames();
    const one = names.rename({ closeValue: 1, close_value: 2 });
    const two = names.rename({ close_value: 2, closeValue: 1 });
    expect(one).toEqual(two);
    expect(one.close_value).toBe(2);
    const other = Object.keys(one).find((key) => key !== 'close_value')!;
    expect(other).toMatch(/^close_value_[0-9a-f]{4}$/);
    expect(one[other]).toBe(1);
  });
});

describe('RecordShaper', () => {
  it('renames fields, elements of arrays of objects and row field names; JSON objects keep their keys; adds metadata', () => {
    const shaper = new RecordShaper({ conventions: { naming: 'snake_case', metadata: true }, loadId: 'run-1', loadedAt: '2024-01-01T00:00:00.000Z', softDeletes: true });
    expect(
      shaper.shape({
        rowId: 'r1',
        owner: { fullName: 'Ann' },
        transcript: [{ startTime: 1, text: 'hi' }],
        tags: ['aB'],
        fields: { 'Close Value': { value: 3, fieldType: 'double' } },
      }),
    ).toEqual({
      row_id: 'r1',
      owner: { fullName: 'Ann' },
      transcript: [{ start_time: 1, text: 'hi' }],
      tags: ['aB'],
      fields: { close_value: { value: 3, fieldType: 'double' } },
      _ferry_loaded_at: '2024-01-01T00:00:00.000Z',
      _ferry_load_id: 'run-1',
      _ferry_deleted_at: null,
    });
    expect(shaper.column('conversationId')).toBe('conversation_id');
  });

  it('passes records through under the API layout', () => {
    const shaper = new RecordShaper({ conventions: { naming: 'api', metadata: false }, loadId: 'x', loadedAt: 'y', softDeletes: false });
    expect(shaper.identity).toBe(true);
    expect(shaper.column('conversationId')).toBe('conversationId');
  });
});
