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

/** A connector whose options the schema describes under `source:` or `destination:`. */
export interface SchemaConnector {
  name: string;
  kind: 'source' | 'destination';
  options: z.ZodType;
}

type JsonObject = Record<string, unknown>;

/**
 * Every built-in connector, loaded to read its options schema. `ferry schema`
 * pays for this; nothing else does.
 */
export async function builtinSchemaConnectors(): Promise<SchemaConnector[]> {
  const { builtinConnectorNames, loadConnector } = await import('./connectors.js');
  const loaded = await Promise.all(builtinConnectorNames().map((name) => loadConnector(name, { baseDir: process.cwd() })));
  return loaded.map((definition) => ({ name: definition.name, kind: definition.kind, options: definition.options }));
}

/**
 * The schema with each connector's options under `source:` (sources) and
 * `destination:` (destinations), chosen by `type` with if/then, so editors
 * complete and check a connector's options, descriptions and defaults. Other
 * types (plugins, paths) keep the open object.
 */
export function configJsonSchemaWithConnectors(connectors: readonly SchemaConnector[]): JsonObject {
  const schema = configJsonSchema();
  const syncs = (schema.properties as JsonObject).syncs as JsonObject;
  const exportsSchema = (schema.properties as JsonObject).exports as JsonObject;
  const syncProps = (syncs.items as JsonObject).properties as JsonObject;
  const exportProps = (exportsSchema.items as JsonObject).properties as JsonObject;
  syncProps.source = discriminated(syncProps.source as JsonObject, connectors.filter((c) => c.kind === 'source'));
  exportProps.destination = discriminated(exportProps.destination as JsonObject, connectors.filter((c) => c.kind === 'destination'));
  return schema;
}

function discriminated(open: JsonObject, connectors: readonly SchemaConnector[]): JsonObject {
  const typeProperty = ((open.properties as JsonObject | undefined)?.type ?? {}) as JsonObject;
  return {
    ...open,
    properties: {
      type: {
        description: typeProperty.description,
        anyOf: [{ enum: connectors.map((c) => c.name) }, { type: 'string', minLength: 1, description: 'a plugin package name or a path (./my-connector)' }],
      },
    },
    allOf: connectors.map((connector) => ({
      if: { properties: { type: { const: connector.name } }, required: ['type'] },
      then: optionsSchema(connector),
    })),
  };
}

function optionsSchema(connector: SchemaConnector): JsonObject {
  const { $schema: _ignored, ...generated } = z.toJSONSchema(connector.options, { io: 'input', target: 'draft-7', unrepresentable: 'any' }) as JsonObject;
  const properties = { type: { const: connector.name }, ...((generated.properties as JsonObject | undefined) ?? {}) };
  return { ...generated, properties, description: `Options of the ${connector.name} ${connector.kind} connector.` };
}
