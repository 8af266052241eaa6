/**
 * Documents from `documents/`: the 18F handbook pages as chat uploads
 * (Markdown, titled by their front matter, which is not part of the text)
 * and the RFC texts as mailbox attachments (named by their file name).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { addDays, iso, officeHour, rngFor } from './generate-random.js';
import type { SeedDocumentInput } from './format.js';

const FIRST_UPLOAD_MS = Date.parse('2023-09-04T00:00:00Z');

function walk(dir: string): string[] {
  return readdirSync(dir)
    .flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? walk(path) : [path];
    })
    .sort();
}

/** Split `---\nfront matter\n---\nbody` into the title and the body. */
export function splitFrontMatter(text: string): { title: string | null; body: string } {
  const m = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/.exec(text);
  if (!m) return { title: null, body: text };
  let title: string | null = null;
  try {
    const front: unknown = parseYaml(m[1] ?? '');
    if (front && typeof front === 'object' && 'title' in front && typeof front.title === 'string') title = front.title.trim();
  } catch {
    // Front matter that is not YAML just has no title.
  }
  return { title, body: text.slice(m[0].length) };
}

export function generateDocuments(dir: string, options: { seed: number }): SeedDocumentInput[] {
  const root = join(dir, 'documents');
  const documents: SeedDocumentInput[] = [];
  const pages = walk(join(root, '18f-handbook', 'pages')).filter((p) => p.endsWith('.md'));
  pages.forEach((path, i) => {
    const remoteId = relative(root, path).split('\\').join('/');
    const rng = rngFor(options.seed, 'document', remoteId);
    const { title, body } = splitFrontMatter(readFileSync(path, 'utf8'));
    const created = officeHour(rng, addDays(FIRST_UPLOAD_MS, i * 3));
    documents.push({
      sourceId: 'chat_upload',
      remoteId,
      displayName: title ?? basename(path),
      url: null,
      contentType: 'text/markdown',
      text: body,
      createdAt: iso(created),
      updatedAt: iso(addDays(created, rng.int(0, 40))),
    });
  });
  const rfcs = walk(join(root, 'rfc')).filter((p) => p.endsWith('.txt'));
  rfcs.forEach((path) => {
    const remoteId = relative(root, path).split('\\').join('/');
    const created = officeHour(rngFor(options.seed, 'document', remoteId), addDays(FIRST_UPLOAD_MS, rngFor(options.seed, 'day', remoteId).int(0, 120)));
    documents.push({
      sourceId: 'mailbox_attachment',
      remoteId,
      displayName: basename(path),
      url: null,
      contentType: 'text/plain',
      text: readFileSync(path, 'utf8'),
      createdAt: iso(created),
      updatedAt: iso(created),
    });
  });
  return documents;
}
