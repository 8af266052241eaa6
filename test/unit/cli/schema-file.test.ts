/**
 * The ferry.schema.json the demo ferry.yaml points editors at is the one
 * `ferry schema` prints, and it describes every built-in connector's options.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { schemaText } from '../../../src/cli/schema.js';
import { builtinConnectorNames } from '../../../src/config/connectors.js';

type Json = Record<string, unknown>;
const SHIPPED = resolve(import.meta.dirname, '../../../ferry.schema.json');

function optionsOf(schema: Json, where: 'source' | 'destination', type: string): Json | undefined {
  const list = where === 'source' ? 'syncs' : 'exports';
  const open = ((((schema.properties as Json)[list] as Json).items as Json).properties as Json)[where] as { allOf: { if: Json; then: Json }[] };
  return open.allOf.find((branch) => JSON.stringify(branch.if).includes(`"const":"${type}"`))?.then;
}

describe('ferry.schema.json', () => {
  it('is current (regenerate with `ferry schema -o ferry.schema.json`)', async () => {
    expect(readFileSync(SHIPPED, 'utf8')).toBe(await schemaText());
  });

  it("has every built-in connector's options, chosen by type, with descriptions and defaults", async () => {
    const schema = JSON.parse(await schemaText()) as Json;
    const described = builtinConnectorNames().filter((name) => optionsOf(schema, 'source', name) ?? optionsOf(schema, 'destination', name));
    expect(described).toEqual(builtinConnectorNames());
    const csv = optionsOf(schema, 'source', 'csv')!.properties as Record<string, Json>;
    expect(csv.delimiter).toMatchObject({ default: ',' });
    expect(csv.type).toEqual({ const: 'csv' });
    expect(optionsOf(schema, 'destination', 'postgres-table')).toBeDefined();
  });

  it('describes every config key and connector option (zod .describe() → description, what editors show)', async () => {
    const schema = JSON.parse(await schemaText()) as Json;
    expect(undescribed(schema)).toEqual([]);
  });
});

/** Paths of properties without a description (a `type: { const }` discriminator needs none). */
function undescribed(node: unknown, path = '', found: string[] = []): string[] {
  if (Array.isArray(node)) {
    for (const item of node) undescribed(item, path, found);
    return found;
  }
  if (typeof node !== 'object' || node === null) return found;
  const object = node as Json;
  for (const [key, value] of Object.entries((object.properties ?? {}) as Record<string, Json>)) {
    if (!('const' in value) && typeof value.description !== 'string') found.push(`${path}.${key}`);
    undescribed(value, `${path}.${key}`, found);
  }
  for (const key of ['items', 'anyOf', 'oneOf', 'allOf', 'then', 'additionalProperties']) {
    if (key in object) undescribed(object[key], key === 'items' ? `${path}[]` : path, found);
  }
  for (const [name, definition] of Object.entries((object.definitions ?? {}) as Json)) undescribed(definition, `#${name}`, found);
  return found;
}
