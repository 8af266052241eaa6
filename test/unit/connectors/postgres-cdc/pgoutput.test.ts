/**
 * The pgoutput decoder on messages built by hand, byte for byte as
 * PostgreSQL's "Logical Replication Message Formats" (protocol version 1)
 * lays them out, each wrapped in the XLogData frame START_REPLICATION sends.
 */
import { describe, expect, it } from 'vitest';
import { decodeFrame, formatLsn, parseLsn, pgTimeToMs, standbyStatus, type PgOutputMessage, type TupleValue } from '../../../../connectors/sources/postgres-cdc/pgoutput.js';

/** Microseconds between 1970-01-01 and 2000-01-01. */
const PG_EPOCH_US = 946_684_800_000_000n;
const COMMIT_MS = Date.UTC(2026, 11, 1, 12, 30, 45, 123);
const COMMIT_PG = BigInt(COMMIT_MS) * 1000n - PG_EPOCH_US;

const u8 = (v: number): Buffer => Buffer.from([v]);
const char = (c: string): Buffer => Buffer.from(c, 'latin1');
const i16 = (v: number): Buffer => {
  const b = Buffer.alloc(2);
  b.writeInt16BE(v);
  return b;
};
const i32 = (v: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(v);
  return b;
};
const u32 = (v: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(v);
  return b;
};
const u64 = (v: bigint): Buffer => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(v);
  return b;
};
const i64 = (v: bigint): Buffer => {
  const b = Buffer.alloc(8);
  b.writeBigInt64BE(v);
  return b;
};
const cstring = (s: string): Buffer => Buffer.concat([Buffer.from(s, 'utf8'), u8(0)]);

/** TupleData: `t` text (length-prefixed), `n` null, `u` unchanged TOAST. */
type Cell = string | null | 'unchanged';
const UNCHANGED = 'unchanged' as const;
function tupleData(cells: Cell[]): Buffer {
  const parts = [i16(cells.length)];
  for (const cell of cells) {
    if (cell === null) parts.push(char('n'));
    else if (cell === UNCHANGED) parts.push(char('u'));
    else {
      const text = Buffer.from(cell, 'utf8');
      parts.push(char('t'), i32(text.length), text);
    }
  }
  return Buffer.concat(parts);
}

/** The XLogData frame ('w') around a pgoutput message. */
function xlog(message: Buffer, start = 0x16_b374_d848n, walEnd = 0x16_b374_d900n): Buffer {
  return Buffer.concat([char('w'), u64(start), u64(walEnd), i64(COMMIT_PG), message]);
}

function decoded(message: Buffer): PgOutputMessage {
  const frame = decodeFrame(xlog(message));
  if (frame?.tag !== 'xlog') throw new Error(`not an XLogData frame: ${JSON.stringify(frame)}`);
  return frame.message;
}

const RELATION_ID = 16_385;
const text = (t: string): TupleValue => ({ kind: 'text', text: t });
const NULL: TupleValue = { kind: 'null' };
const KEPT: TupleValue = { kind: 'unchanged' };

describe('pgoutput decoder', () => {
  it('decodes Begin and Commit with their LSNs, xid and commit time', () => {
    expect(decoded(Buffer.concat([char('B'), u64(0x1_0000_0a00n), i64(COMMIT_PG), u32(4_000_000_123)]))).toEqual({
      tag: 'begin',
      finalLsn: 0x1_0000_0a00n,
      commitTimeMs: COMMIT_MS,
      xid: 4_000_000_123,
    });
    expect(decoded(Buffer.concat([char('C'), u8(0), u64(0x1_0000_0a00n), u64(0x1_0000_0a38n), i64(COMMIT_PG)]))).toEqual({
      tag: 'commit',
      commitLsn: 0x1_0000_0a00n,
      endLsn: 0x1_0000_0a38n,
      commitTimeMs: COMMIT_MS,
    });
  });

  it('decodes a Relation: schema, name, replica identity, columns with their key flag and type', () => {
    const columns = [
      [1, 'id', 23, -1],
      [0, 'title', 25, -1],
      [0, 'amount', 1700, 786_438],
      [0, 'notes', 25, -1],
    ] as const;
    const message = Buffer.concat([
      char('R'),
      u32(RELATION_ID),
      cstring('crm'),
      cstring('deals'),
      char('d'),
      i16(columns.length),
      ...columns.map(([flags, name, oid, mod]) => Buffer.concat([u8(flags), cstring(name), u32(oid), i32(mod)])),
    ]);
    expect(decoded(message)).toEqual({
      tag: 'relation',
      relation: {
        id: RELATION_ID,
        schema: 'crm',
        name: 'deals',
        replicaIdentity: 'd',
        columns: [
          { name: 'id', typeOid: 23, key: true },
          { name: 'title', typeOid: 25, key: false },
          { name: 'amount', typeOid: 1700, key: false },
          { name: 'notes', typeOid: 25, key: false },
        ],
      },
    });
    // pg_catalog is sent as the empty string.
    const inCatalog = Buffer.concat([char('R'), u32(7), cstring(''), cstring('t'), char('f'), i16(0)]);
    expect(decoded(inCatalog)).toMatchObject({ relation: { schema: 'pg_catalog', replicaIdentity: 'f', columns: [] } });
  });

  it('decodes an Insert: text values (UTF-8, empty), NULL', () => {
    const message = Buffer.concat([char('I'), u32(RELATION_ID), char('N'), tupleData(['42', 'Café – 東京', '', null])]);
    expect(decoded(message)).toEqual({ tag: 'insert', relationId: RELATION_ID, next: [text('42'), text('Café – 東京'), text(''), NULL] });
  });

  it('decodes an Update without an old tuple, with the old key (K) and with the full old row (O)', () => {
    expect(decoded(Buffer.concat([char('U'), u32(RELATION_ID), char('N'), tupleData(['1', 'renamed', '2.50', null])]))).toEqual({
      tag: 'update',
      relationId: RELATION_ID,
      next: [text('1'), text('renamed'), text('2.50'), NULL],
    });
    // The key changed: the old key comes first, the other columns of a key-only tuple are NULL.
    expect(decoded(Buffer.concat([char('U'), u32(RELATION_ID), char('K'), tupleData(['1', null, null, null]), char('N'), tupleData(['5000', 'moved', '2.50', null])]))).toEqual({
      tag: 'update',
      relationId: RELATION_ID,
      old: [text('1'), NULL, NULL, NULL],
      oldIsKey: true,
      next: [text('5000'), text('moved'), text('2.50'), NULL],
    });
    // REPLICA IDENTITY FULL: the whole old row.
    expect(decoded(Buffer.concat([char('U'), u32(RELATION_ID), char('O'), tupleData(['1', 'old', '1.25', 'long text']), char('N'), tupleData(['1', 'new', '1.25', 'long text'])]))).toEqual({
      tag: 'update',
      relationId: RELATION_ID,
      old: [text('1'), text('old'), text('1.25'), text('long text')],
      oldIsKey: false,
      next: [text('1'), text('new'), text('1.25'), text('long text')],
    });
  });

  it("decodes an unchanged TOASTed value ('u') as unchanged, not as NULL or empty", () => {
    const message = Buffer.concat([char('U'), u32(RELATION_ID), char('N'), tupleData(['9001', 'late, renamed', '7', UNCHANGED])]);
    const update = decoded(message);
    expect(update).toEqual({ tag: 'update', relationId: RELATION_ID, next: [text('9001'), text('late, renamed'), text('7'), KEPT] });
    // Also in a full old row (the old value was TOASTed and the update did not touch it).
    const full = decoded(Buffer.concat([char('U'), u32(RELATION_ID), char('O'), tupleData(['9001', 'late', '7', UNCHANGED]), char('N'), tupleData(['9001', 'late, renamed', '7', UNCHANGED])]));
    expect(full).toMatchObject({ old: [text('9001'), text('late'), text('7'), KEPT], oldIsKey: false });
  });

  it('decodes a Delete with the old key (K) and with the full old row (O)', () => {
    expect(decoded(Buffer.concat([char('D'), u32(RELATION_ID), char('K'), tupleData(['3', null, null, null])]))).toEqual({
      tag: 'delete',
      relationId: RELATION_ID,
      old: [text('3'), NULL, NULL, NULL],
      oldIsKey: true,
    });
    expect(decoded(Buffer.concat([char('D'), u32(RELATION_ID), char('O'), tupleData(['3', 'gone', '3.75', null])]))).toEqual({
      tag: 'delete',
      relationId: RELATION_ID,
      old: [text('3'), text('gone'), text('3.75'), NULL],
      oldIsKey: false,
    });
  });

  it('decodes a Truncate of several relations with CASCADE and RESTART IDENTITY', () => {
    expect(decoded(Buffer.concat([char('T'), i32(2), u8(0), u32(RELATION_ID), u32(RELATION_ID + 1)]))).toEqual({
      tag: 'truncate',
      relationIds: [RELATION_ID, RELATION_ID + 1],
      cascade: false,
      restartIdentity: false,
    });
    expect(decoded(Buffer.concat([char('T'), i32(1), u8(3), u32(RELATION_ID)]))).toEqual({ tag: 'truncate', relationIds: [RELATION_ID], cascade: true, restartIdentity: true });
  });

  it('passes over messages it does not use (Origin, Type, Message) by their code', () => {
    expect(decoded(Buffer.concat([char('Y'), u32(600), cstring('public'), cstring('mood')]))).toEqual({ tag: 'other', code: 'Y' });
  });

  it('refuses a tuple value kind it does not know rather than misread the rest', () => {
    const bad = Buffer.concat([char('I'), u32(RELATION_ID), char('N'), i16(1), char('x')]);
    expect(() => decoded(bad)).toThrow(/unknown tuple value kind "x"/);
  });

  it('decodes the frame around the message: XLogData positions, and the keepalive with its reply flag', () => {
    const frame = decodeFrame(xlog(Buffer.concat([char('B'), u64(5n), i64(COMMIT_PG), u32(1)]), 0x2_0000_0010n, 0x2_0000_0020n));
    expect(frame).toMatchObject({ tag: 'xlog', start: 0x2_0000_0010n, walEnd: 0x2_0000_0020n });
    expect(decodeFrame(Buffer.concat([char('k'), u64(0x3_0000_0000n), i64(COMMIT_PG), u8(1)]))).toEqual({ tag: 'keepalive', walEnd: 0x3_0000_0000n, replyRequested: true });
    expect(decodeFrame(Buffer.concat([char('k'), u64(1n), i64(COMMIT_PG), u8(0)]))).toEqual({ tag: 'keepalive', walEnd: 1n, replyRequested: false });
    expect(decodeFrame(char('?'))).toBeUndefined();
  });

  it('a whole transaction in order: Begin, Relation, Insert, Update, Delete, Commit', () => {
    const stream = [
      Buffer.concat([char('B'), u64(0x10n), i64(COMMIT_PG), u32(7)]),
      Buffer.concat([char('R'), u32(RELATION_ID), cstring('public'), cstring('t'), char('d'), i16(1), u8(1), cstring('id'), u32(23), i32(-1)]),
      Buffer.concat([char('I'), u32(RELATION_ID), char('N'), tupleData(['1'])]),
      Buffer.concat([char('U'), u32(RELATION_ID), char('N'), tupleData(['1'])]),
      Buffer.concat([char('D'), u32(RELATION_ID), char('K'), tupleData(['1'])]),
      Buffer.concat([char('C'), u8(0), u64(0x10n), u64(0x48n), i64(COMMIT_PG)]),
    ].map((m) => decoded(m).tag);
    expect(stream).toEqual(['begin', 'relation', 'insert', 'update', 'delete', 'commit']);
  });
});

describe('LSNs, times and the standby status update', () => {
  it('formats and parses LSNs as PostgreSQL prints them', () => {
    expect(formatLsn(0x16_b374_d848n)).toBe('16/B374D848');
    expect(formatLsn(0n)).toBe('0/0');
    expect(parseLsn('16/B374D848')).toBe(0x16_b374_d848n);
    expect(parseLsn(' 0/1a ')).toBe(0x1an);
    expect(() => parseLsn('16B374D848')).toThrow(/not an LSN/);
  });

  it('converts PostgreSQL timestamps (µs since 2000-01-01) to Unix milliseconds', () => {
    expect(pgTimeToMs(0n)).toBe(Date.UTC(2000, 0, 1));
    expect(pgTimeToMs(COMMIT_PG)).toBe(COMMIT_MS);
  });

  it('reports the confirmed LSN as written, flushed and applied', () => {
    const status = standbyStatus(0x16_b374_d848n, true);
    expect(status).toHaveLength(34);
    expect(status.toString('latin1', 0, 1)).toBe('r');
    for (const at of [1, 9, 17]) expect(status.readBigUInt64BE(at)).toBe(0x16_b374_d848n);
    const clock = pgTimeToMs(status.readBigInt64BE(25));
    expect(Math.abs(clock - Date.now())).toBeLessThan(60_000);
    expect(status.readUInt8(33)).toBe(1);
    expect(standbyStatus(1n).readUInt8(33)).toBe(0);
  });
});
