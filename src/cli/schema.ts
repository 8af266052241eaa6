/** `ferry schema`: the JSON Schema of ferry.yaml, for editor completion and checks. */
import { writeFile } from 'node:fs/promises';
import { configJsonSchema } from '../config/json-schema.js';
import type { RegisterCommand } from './main.js';

export const register: RegisterCommand = (command) => {
  command
    .option('-o, --out <file>', 'write it to a file instead of stdout')
    .action(async (options: { out?: string }) => {
      const text = `${JSON.stringify(configJsonSchema(), null, 2)}\n`;
      if (options.out) {
        await writeFile(options.out, text);
        console.error(`wrote ${options.out}`);
        return;
      }
      process.stdout.write(text);
    });
};
