/** `ferry schema`: the JSON Schema of ferry.yaml with every built-in connector's options, for editor completion and checks. */
import { writeFile } from 'node:fs/promises';
import { builtinSchemaConnectors, configJsonSchemaWithConnectors } from '../config/json-schema.js';
import type { RegisterCommand } from './main.js';

/** The schema text `ferry schema` prints and the repository ships as ferry.schema.json. */
export async function schemaText(): Promise<string> {
  return `${JSON.stringify(configJsonSchemaWithConnectors(await builtinSchemaConnectors()), null, 2)}\n`;
}

export const register: RegisterCommand = (command) => {
  command.option('-o, --out <file>', 'write it to a file instead of stdout').action(async (options: { out?: string }) => {
    const text = await schemaText();
    if (options.out) {
      await writeFile(options.out, text);
      console.error(`wrote ${options.out}`);
      return;
    }
    process.stdout.write(text);
  });
};
