/**
 * One record per file: documents from a folder of Markdown, text or PDFs.
 * Text files are decoded as UTF-8 into `text`; every file's bytes are also
 * offered base64-encoded as `content`, the shape DocumentRequest takes.
 */
import { readFile, stat } from 'node:fs/promises';
import { basename, extname, relative } from 'node:path';
import { z } from 'zod';
import { listFiles } from '../_shared/files.js';
import { FerryError, compareCursorValues, defineSource } from '../../../src/sdk/index.js';

const TEXT_TYPES: Record<string, string> = {
  '.md': 'text/markdown',
  '.markdown': 'text/markdown',
  '.txt': 'text/plain',
  '.csv': 'text/csv',
  '.json': 'application/json',
  '.html': 'text/html',
  '.htm': 'text/html',
  '.xml': 'application/xml',
  '.yaml': 'application/yaml',
  '.yml': 'application/yaml',
};
const BINARY_TYPES: Record<string, string> = {
  '.pdf': 'application/pdf',
  '.docx': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
};

const options = z.strictObject({
  path: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).describe('A file, folder glob or list of globs, relative to the YAML file.'),
  maxBytes: z.number().int().positive().default(7 * 1024 * 1024).describe('Files larger than this are refused (the service takes bodies up to 10 MB, base64 grows by a third).'),
});

export default defineSource({
  name: 'files',
  options,
  example: { path: 'docs/**/*.md' },

  async discover(ctx) {
    const files = await listFiles(ctx.options.path, ctx.baseDir);
    return [
      {
        name: String(ctx.options.path),
        primaryKey: ['path'],
        cursorCandidates: ['modifiedAt'],
        estimatedCount: files.length,
        fields: [
          { name: 'path', type: 'string' },
          { name: 'name', type: 'string' },
          { name: 'extension', type: 'string' },
          { name: 'contentType', type: 'string' },
          { name: 'size', type: 'int' },
          { name: 'modifiedAt', type: 'datetime' },
          { name: 'text', type: 'textarea' },
          { name: 'content', type: 'textarea' },
        ],
      },
    ];
  },

  async *read(ctx) {
    const files = await listFiles(ctx.options.path, ctx.baseDir);
    if (files.length === 0) {
      throw new FerryError('FERRY_SOURCE_OBJECT_MISSING', `no files match ${JSON.stringify(ctx.options.path)}`, {
        where: `sync ${ctx.syncName}`,
        hint: `paths resolve against ${ctx.baseDir}`,
      });
    }
    const after = ctx.incremental?.after;
    for (const file of files) {
      if (ctx.signal.aborted) return;
      const info = await stat(file);
      const modifiedAt = info.mtime.toISOString();
      if (after && compareCursorValues(modifiedAt, after.value) <= 0) continue;
      const rel = relative(ctx.baseDir, file);
      if (info.size > ctx.options.maxBytes) {
        ctx.logger.warn({ file: rel, size: info.size }, 'file larger than maxBytes; yielded without content');
      }
      const bytes = info.size > ctx.options.maxBytes ? Buffer.alloc(0) : await readFile(file);
      const extension = extname(file).toLowerCase();
      const textType = TEXT_TYPES[extension];
      const data = {
        path: rel,
        name: basename(file),
        extension,
        contentType: textType ?? BINARY_TYPES[extension] ?? 'application/octet-stream',
        size: info.size,
        modifiedAt,
        text: textType ? bytes.toString('utf8') : null,
        content: bytes.toString('base64'),
      };
      yield { data, origin: { stream: String(ctx.options.path), file: rel, line: 1, key: rel }, cursor: modifiedAt };
    }
  },
});

