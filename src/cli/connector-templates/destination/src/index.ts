/**
 * __CONNECTOR_NAME__: an example ferry destination for reverse exports
 * (`ferry export`). It appends each batch as JSON Lines to one file per
 * stream; swap the file for your warehouse or API and keep the shape.
 *
 * The contract, in short:
 * - `options` is a zod schema of everything under `destination:` except `type`.
 * - `open()` returns a writer: `write(batch)` for each batch, `flush()` before
 *   ferry checkpoints (make what was written durable), `close()` when the
 *   export completed, `abort(reason)` when it failed.
 * - No retries, no parallelism: ferry calls the writer one batch at a time.
 *   Throw FerryError with a stable code.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { once } from 'node:events';
import { z } from 'zod';
import { FerryError, defineDestination } from 'ferry/sdk';

const options = z.strictObject({
  // .describe() becomes the JSON Schema description editors show (`ferry schema`).
  dir: z.string().min(1).describe('Folder the files are written to, relative to the YAML file. Example: out/.'),
});

export default defineDestination({
  name: '__CONNECTOR_NAME__',
  options,
  example: { dir: 'out' },

  async open(ctx) {
    const dir = resolve(ctx.baseDir, ctx.options.dir);
    try {
      await mkdir(dir, { recursive: true });
    } catch (cause) {
      throw new FerryError('FERRY_CONFIG_INVALID', `cannot create ${ctx.options.dir}`, { cause, where: `export ${ctx.syncName}` });
    }
    const files = new Map<string, WriteStream>();
    const fileOf = (stream: string): WriteStream => {
      let file = files.get(stream);
      if (!file) {
        file = createWriteStream(join(dir, `${stream.replace(/[^\w.-]+/g, '_')}.jsonl`), { flags: 'a' });
        files.set(stream, file);
      }
      return file;
    };
    const closeAll = async () => {
      await Promise.all([...files.values()].map(async (file) => {
        file.end();
        await once(file, 'finish');
      }));
      files.clear();
    };
    return {
      async write(batch) {
        const file = fileOf(batch.stream);
        const text = batch.records.map((record) => JSON.stringify(record)).join('\n') + '\n';
        if (!file.write(text)) await once(file, 'drain');
      },
      async close() {
        await closeAll();
      },
      async abort() {
        await closeAll();
      },
    };
  },
});
