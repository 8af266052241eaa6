/**
 * The JSON Schema of ferry.yaml, generated from the zod schema so editors
 * (via yaml-language-server) complete and check the same thing ferry does.
 */
import { z } from 'zod';
import { projectFile } from './schema.js';

/**
 * As written by users (`io: 'input'`): keys with defaults are optional.
 * Draft 7, which every YAML/JSON editor plugin understands.
 * Included files (only `syncs:` and `exports:`) validate against it too.
 */
export function configJsonSchema(): Record<string, unknown> {
  const generated = z.toJSONSchema(projectFile, { io: 'input', target: 'draft-7', unrepresentable: 'any' });
  const { $schema, ...rest } = generated;
  return {
    $schema: $schema ?? 'http://json-schema.org/draft-07/schema#',
    title: 'ferry project file (ferry.yaml)',
    description:
      'Syncs into and exports out of the Conversation Intelligence and Data Import Service. ' +
      'String values may use ${VAR} and ${VAR:-default}; relative paths resolve against the file that contains them.',
    ...rest,
  };
}
