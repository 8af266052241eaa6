/**
 * The replication stream's frames and the `pgoutput` plugin's messages
 * (protocol version 1, text values), decoded from the CopyData payloads of
 * START_REPLICATION. See PostgreSQL's "Streaming Replication Protocol" and
 * "Logical Replication Message Formats".
 */

/** An LSN as PostgreSQL prints it (`16/B374D848`) from its 64-bit value, and back. */
export function formatLsn(lsn: bigint): string {
  return `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffffffffn).toString(16).toUpperCase()}`;
}

export function parseLsn(text: string): bigint {
  const match = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/.exec(text.trim());
  if (!match) throw new Error(`not an LSN: ${text}`);
  return (BigInt(`0x${match[1]}`) << 32n) | BigInt(`0x${match[2]}`);
}

/** Microseconds between the Unix epoch and PostgreSQL's (2000-01-01). */
const PG_EPOCH_US = 946_684_800_000_000n;

export function pgTimeToMs(us: bigint): number {
  return Number((us + PG_EPOCH_US) / 1000n);
}

export function nowAsPgTime(): bigint {
  return BigInt(Date.now()) * 1000n - PG_EPOCH_US;
}

/** A column of a relation as pgoutput describes it. */
export interface RelationColumn {
  name: string;
  typeOid: number;
  /** Part of the replica identity (the key a delete carries). */
  key: boolean;
}

export interface Relation {
  id: number;
  schema: string;
  name: string;
  /** `d` default (primary key), `f` full, `i` index, `n` nothing. */
  replicaIdentity: string;
  columns: RelationColumn[];
}

/** One column's value in a tuple: text, SQL NULL, or a TOASTed value left out because it did not change. */
export type TupleValue = { kind: 'text'; text: string } | { kind: 'null' } | { kind: 'unchanged' };

export type PgOutputMessage =
  | { tag: 'begin'; finalLsn: bigint; commitTimeMs: number; xid: number }
  | { tag: 'commit'; commitLsn: bigint; endLsn: bigint; commitTimeMs: number }
  | { tag: 'relation'; relation: Relation }
  | { tag: 'insert'; relationId: number; next: TupleValue[] }
  | { tag: 'update'; relationId: number; old?: TupleValue[]; oldIsKey?: boolean; next: TupleValue[] }
  | { tag: 'delete'; relationId: number; old: TupleValue[]; oldIsKey: boolean }
  | { tag: 'truncate'; relationIds: number[]; cascade: boolean; restartIdentity: boolean }
  | { tag: 'other'; code: string };

/** A frame of the replication stream: changes (XLogData) or the server's keepalive. */
export type ReplicationFrame =
  | { tag: 'xlog'; start: bigint; walEnd: bigint; message: PgOutputMessage }
  | { tag: 'keepalive'; walEnd: bigint; replyRequested: boolean };

class Reader {
  private at = 0;
  constructor(private readonly buf: Buffer) {}
  u8(): number {
    return this.buf.readUInt8(this.at++);
  }
  i16(): number {
    const v = this.buf.readInt16BE(this.at);
    this.at += 2;
    return v;
  }
  i32(): number {
    const v = this.buf.readInt32BE(this.at);
    this.at += 4;
    return v;
  }
  u32(): number {
    const v = this.buf.readUInt32BE(this.at);
    this.at += 4;
    return v;
  }
  u64(): bigint {
    const v = this.buf.readBigUInt64BE(this.at);
    this.at += 8;
    return v;
  }
  i64(): bigint {
    const v = this.buf.readBigInt64BE(this.at);
    this.at += 8;
    return v;
  }
  cstring(): string {
    const end = this.buf.indexOf(0, this.at);
    const text = this.buf.toString('utf8', this.at, end);
    this.at = end + 1;
    return text;
  }
  bytes(n: number): Buffer {
    const out = this.buf.subarray(this.at, this.at + n);
    this.at += n;
    return out;
  }
  char(): string {
    return String.fromCharCode(this.u8());
  }
}

export function decodeFrame(payload: Buffer): ReplicationFrame | undefined {
  const r = new Reader(payload);
  const kind = r.char();
  if (kind === 'k') {
    const walEnd = r.u64();
    r.i64(); // server clock
    return { tag: 'keepalive', walEnd, replyRequested: r.u8() === 1 };
  }
  if (kind !== 'w') return undefined;
  const start = r.u64();
  const walEnd = r.u64();
  r.i64(); // server clock
  return { tag: 'xlog', start, walEnd, message: decodeMessage(r) };
}

function tuple(r: Reader): TupleValue[] {
  const n = r.i16();
  const values: TupleValue[] = new Array<TupleValue>(n);
  for (let i = 0; i < n; i++) {
    const kind = r.char();
    if (kind === 'n') values[i] = { kind: 'null' };
    else if (kind === 'u') values[i] = { kind: 'unchanged' };
    else if (kind === 't' || kind === 'b') {
      const len = r.i32();
      values[i] = { kind: 'text', text: r.bytes(len).toString('utf8') };
    } else throw new Error(`pgoutput: unknown tuple value kind ${JSON.stringify(kind)}`);
  }
  return values;
}

function decodeMessage(r: Reader): PgOutputMessage {
  const code = r.char();
  switch (code) {
    case 'B': {
      const finalLsn = r.u64();
      const commitTimeMs = pgTimeToMs(r.i64());
      return { tag: 'begin', finalLsn, commitTimeMs, xid: r.u32() };
    }
    case 'C': {
      r.u8(); // flags
      const commitLsn = r.u64();
      const endLsn = r.u64();
      return { tag: 'commit', commitLsn, endLsn, commitTimeMs: pgTimeToMs(r.i64()) };
    }
    case 'R': {
      const id = r.u32();
      const schema = r.cstring();
      const name = r.cstring();
      const replicaIdentity = r.char();
      const n = r.i16();
      const columns: RelationColumn[] = [];
      for (let i = 0; i < n; i++) {
        const flags = r.u8();
        const column = r.cstring();
        const typeOid = r.u32();
        r.i32(); // type modifier
        columns.push({ name: column, typeOid, key: (flags & 1) === 1 });
      }
      return { tag: 'relation', relation: { id, schema: schema === '' ? 'pg_catalog' : schema, name, replicaIdentity, columns } };
    }
    case 'I': {
      const relationId = r.u32();
      r.char(); // 'N'
      return { tag: 'insert', relationId, next: tuple(r) };
    }
    case 'U': {
      const relationId = r.u32();
      let kind = r.char();
      let old: TupleValue[] | undefined;
      let oldIsKey: boolean | undefined;
      if (kind === 'K' || kind === 'O') {
        oldIsKey = kind === 'K';
        old = tuple(r);
        kind = r.char();
      }
      const next = tuple(r);
      return { tag: 'update', relationId, ...(old ? { old, oldIsKey: oldIsKey === true } : {}), next };
    }
    case 'D': {
      const relationId = r.u32();
      const kind = r.char();
      return { tag: 'delete', relationId, old: tuple(r), oldIsKey: kind === 'K' };
    }
    case 'T': {
      const n = r.i32();
      const options = r.u8();
      const relationIds: number[] = [];
      for (let i = 0; i < n; i++) relationIds.push(r.u32());
      return { tag: 'truncate', relationIds, cascade: (options & 1) === 1, restartIdentity: (options & 2) === 2 };
    }
    default:
      return { tag: 'other', code };
  }
}

/** The standby status update that tells the server how far the client has written, flushed and applied. */
export function standbyStatus(lsn: bigint, replyRequested = false): Buffer {
  const buf = Buffer.alloc(34);
  buf.write('r', 0);
  const position = lsn + 0n;
  buf.writeBigUInt64BE(position, 1);
  buf.writeBigUInt64BE(position, 9);
  buf.writeBigUInt64BE(position, 17);
  buf.writeBigInt64BE(nowAsPgTime(), 25);
  buf.writeUInt8(replyRequested ? 1 : 0, 33);
  return buf;
}
