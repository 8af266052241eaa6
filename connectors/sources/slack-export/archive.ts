/**
 * A Slack export as a tree of JSON files, from a folder or a zip. A zip is
 * never extracted: its central directory is read (yauzl, a well-kept
 * streaming reader), and an entry's bytes are read into memory only when
 * asked for, so nothing is ever written to disk, inside a temporary folder
 * or out of it. Guards, all checked before an entry is inflated and again
 * while it is: entry count and total uncompressed size (the archive is
 * refused), an entry's size, its compression ratio (a bomb), and paths that
 * are absolute or climb out with `..` (the entry is refused, counted).
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import yauzl from 'yauzl';
import type { Entry, ZipFile } from 'yauzl';
import { FerryError, messageOf } from '../../../src/sdk/index.js';

export interface ArchiveLimits {
  maxEntries: number;
  maxEntryBytes: number;
  maxTotalBytes: number;
  maxCompressionRatio: number;
}

export interface RefusedEntry {
  name: string;
  reason: string;
}

export interface ExportTree {
  /** JSON files, as `/`-separated paths relative to the export's root (the folder holding users.json). */
  names: string[];
  refused: RefusedEntry[];
  read(name: string): Promise<Buffer>;
  close(): Promise<void>;
}

/** Inflating less than this is never called a bomb, whatever its ratio (an empty day file compresses 1:50). */
const RATIO_FLOOR_BYTES = 1024 * 1024;

/** Why an entry's path is refused, or undefined when it is a plain relative path. */
export function unsafePath(name: string): string | undefined {
  if (name.includes('\0')) return 'a path with a NUL byte';
  if (/^([a-zA-Z]:|[\\/])/.test(name)) return 'an absolute path';
  if (name.split(/[\\/]/).includes('..')) return 'a path that climbs out of the archive with ..';
  return undefined;
}

export async function openExport(path: string, limits: ArchiveLimits): Promise<ExportTree> {
  const info = await stat(path).catch((error: unknown) => {
    throw new FerryError('FERRY_SOURCE_OBJECT_MISSING', `the Slack export ${path} does not exist (${messageOf(error)})`, { hint: 'path is the export folder or its .zip, relative to the YAML file' });
  });
  return info.isDirectory() ? openFolder(path) : openZip(path, limits);
}

/** The folder holding users.json or channels.json (a zip often wraps the export in one top folder). */
function rooted(names: string[]): { root: string; names: string[] } {
  const marker = names.filter((n) => /(^|\/)(users|channels)\.json$/.test(n)).sort((a, b) => a.split('/').length - b.split('/').length)[0];
  const root = marker && marker.includes('/') ? marker.slice(0, marker.lastIndexOf('/') + 1) : '';
  return { root, names: names.filter((n) => n.startsWith(root)).map((n) => n.slice(root.length)) };
}

async function openFolder(dir: string): Promise<ExportTree> {
  const found: string[] = [];
  const walk = async (at: string, depth: number): Promise<void> => {
    for (const entry of await readdir(at, { withFileTypes: true })) {
      const full = join(at, entry.name);
      if (entry.isDirectory() && depth < 3) await walk(full, depth + 1);
      else if (entry.isFile() && entry.name.endsWith('.json')) found.push(relative(dir, full).split(sep).join('/'));
    }
  };
  await walk(dir, 0);
  const { root, names } = rooted(found.sort());
  return { names, refused: [], read: (name) => readFile(join(dir, root, name)), close: async () => {} };
}

async function openZip(path: string, limits: ArchiveLimits): Promise<ExportTree> {
  const zip = await new Promise<ZipFile>((resolve, reject) => {
    // decodeStrings off: names come as bytes and are checked here, so an unsafe one is refused alone instead of failing the archive.
    yauzl.open(path, { lazyEntries: true, decodeStrings: false, validateEntrySizes: true, autoClose: false }, (error, file) => (error ? reject(error) : resolve(file)));
  }).catch((error: unknown) => {
    throw new FerryError('FERRY_SOURCE_READ_FAILED', `${path} is not a readable zip archive: ${messageOf(error)}`, { cause: error });
  });
  const refuse = (message: string): never => {
    zip.close();
    throw new FerryError('FERRY_SOURCE_READ_FAILED', `${path}: ${message}; the archive was not read`, {
      hint: 'raise maxEntries / maxTotalBytes if the export really is that large, or unpack it and point path at the folder',
    });
  };
  if (zip.entryCount > limits.maxEntries) refuse(`${zip.entryCount} entries, over maxEntries (${limits.maxEntries})`);
  const entries = new Map<string, Entry>();
  const refused: RefusedEntry[] = [];
  let total = 0;
  await new Promise<void>((resolve, reject) => {
    zip.on('error', reject);
    zip.on('end', () => resolve());
    zip.on('entry', (entry: Entry) => {
      const name = (entry.fileName as unknown as Buffer).toString('utf8');
      const why = unsafePath(name);
      if (why) refused.push({ name, reason: `${why}; refused` });
      else if (!name.endsWith('/') && name.endsWith('.json')) {
        total += entry.uncompressedSize;
        if (total > limits.maxTotalBytes) {
          reject(new FerryError('FERRY_SOURCE_READ_FAILED', `${path}: more than maxTotalBytes (${limits.maxTotalBytes}) uncompressed; the archive was not read`, { hint: 'raise maxTotalBytes if the export really is that large' }));
          return;
        }
        const ratio = entry.compressedSize > 0 ? entry.uncompressedSize / entry.compressedSize : Number.POSITIVE_INFINITY;
        if (entry.uncompressedSize > limits.maxEntryBytes) refused.push({ name, reason: `${entry.uncompressedSize} bytes uncompressed, over maxEntryBytes (${limits.maxEntryBytes}); refused` });
        else if (entry.uncompressedSize > RATIO_FLOOR_BYTES && ratio > limits.maxCompressionRatio) refused.push({ name, reason: `compressed ${Math.round(ratio)}:1, over maxCompressionRatio (${limits.maxCompressionRatio}), as a zip bomb is; refused` });
        else entries.set(name, entry);
      }
      zip.readEntry();
    });
    zip.readEntry();
  }).catch((error: unknown) => {
    zip.close();
    if (error instanceof FerryError) throw error;
    throw new FerryError('FERRY_SOURCE_READ_FAILED', `${path}: a damaged zip archive (${messageOf(error)})`, { cause: error });
  });
  const { root, names } = rooted([...entries.keys()].sort());
  const read = (name: string): Promise<Buffer> =>
    new Promise((resolve, reject) => {
      const entry = entries.get(root + name);
      if (!entry) return reject(new Error(`no entry ${name}`));
      zip.openReadStream(entry, (error, stream) => {
        if (error) return reject(error);
        const chunks: Buffer[] = [];
        let size = 0;
        stream.on('data', (chunk: Buffer) => {
          size += chunk.length;
          // validateEntrySizes stops a stream that inflates past its declared size; this holds the cap even so.
          if (size > limits.maxEntryBytes) stream.destroy(new Error(`inflates past maxEntryBytes (${limits.maxEntryBytes})`));
          else chunks.push(chunk);
        });
        stream.on('error', reject);
        stream.on('end', () => resolve(Buffer.concat(chunks)));
      });
    });
  return { names, refused, read, close: async () => zip.close() };
}
