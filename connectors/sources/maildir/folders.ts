/**
 * The messages of Maildir folders: the files of `cur/` and `new/` (never
 * `tmp/`, where a delivery is still being written), and with Maildir++
 * the `.Sub.Folder` folders beside them; each file's flags come from its
 * name (`<unique>:2,<flags>`).
 */
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { glob } from 'tinyglobby';

export interface MaildirMessage {
  path: string;
  /** `INBOX` for the Maildir itself, `Sent` or `Archive/2020` for a Maildir++ folder. */
  folder: string;
  state: 'new' | 'cur';
  /** The file name's unique part (before `:2,`), the same when the message moves from new/ to cur/. */
  unique: string;
  flags: string[];
}

const FLAG_NAMES: Record<string, string> = { D: 'draft', F: 'flagged', P: 'passed', R: 'replied', S: 'seen', T: 'trashed' };

/** `1700000000.M1P2.host:2,RS` → unique part and flag names (unknown letters kept as they are). */
export function parseMaildirName(name: string): { unique: string; flags: string[] } {
  const match = /^(.*?)[:!]2,([A-Za-z]*)$/.exec(name);
  if (!match) return { unique: name, flags: [] };
  return { unique: match[1]!, flags: [...match[2]!].map((letter) => FLAG_NAMES[letter] ?? letter) };
}

const isMaildir = (dir: string): boolean => existsSync(join(dir, 'cur')) || existsSync(join(dir, 'new'));

/** Every Maildir the patterns name (and their Maildir++ subfolders, when asked), absolute and sorted. */
export async function maildirs(patterns: string | readonly string[], baseDir: string, subfolders: boolean): Promise<{ dir: string; folder: string }[]> {
  const list = typeof patterns === 'string' ? [patterns] : [...patterns];
  const roots = (await glob(list, { cwd: baseDir, absolute: true, onlyDirectories: true, expandDirectories: false })).map((d) => resolve(d)).filter(isMaildir).sort();
  const found: { dir: string; folder: string }[] = [];
  for (const root of roots) {
    found.push({ dir: root, folder: 'INBOX' });
    if (!subfolders) continue;
    const entries = await readdir(root, { withFileTypes: true });
    for (const entry of entries.filter((e) => e.isDirectory() && e.name.startsWith('.') && e.name.length > 1).sort((a, b) => a.name.localeCompare(b.name))) {
      const dir = join(root, entry.name);
      if (isMaildir(dir)) found.push({ dir, folder: entry.name.slice(1).split('.').join('/') });
    }
  }
  return found;
}

/** The messages of one Maildir: new/ then cur/, each sorted by name. */
export async function messagesOf(maildir: { dir: string; folder: string }): Promise<MaildirMessage[]> {
  const out: MaildirMessage[] = [];
  for (const state of ['new', 'cur'] as const) {
    const dir = join(maildir.dir, state);
    const names = existsSync(dir) ? (await readdir(dir, { withFileTypes: true })).filter((e) => e.isFile() && !e.name.startsWith('.')).map((e) => e.name).sort() : [];
    for (const name of names) out.push({ path: join(dir, name), folder: maildir.folder, state, ...parseMaildirName(basename(name)) });
  }
  return out;
}
