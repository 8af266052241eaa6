import { describe, expect, it } from 'vitest';
import { bareColumns } from '../../../src/mapping/bare-columns.js';

describe('bareColumns', () => {
  it('finds bare and back-quoted column names at every depth, with their map path', () => {
    expect(
      bareColumns({ id: 'id', name: '`Deal Name`', author: { email: 'author_email' }, fields: { stage: ' deal_stage ' } }),
    ).toEqual([
      { path: 'id', column: 'id' },
      { path: 'name', column: 'Deal Name' },
      { path: 'author.email', column: 'author_email' },
      { path: 'fields.stage', column: 'deal_stage' },
    ]);
  });

  it('leaves out expressions, JSONata literals and YAML literals', () => {
    expect(
      bareColumns({ a: '$now()', b: 'first & " " & last', c: 'true', d: 'null', e: false, f: 3, g: null, h: ['x'], i: 'from[0].email', j: "'constant'" }),
    ).toEqual([]);
  });
});
