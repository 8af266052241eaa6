/**
 * The types of a resource's nested fields whose shape the service's spec
 * gives (src/api/schemas/read.ts, ../shared/spec/service-api.md), for
 * destinations that have STRUCT and LIST columns (docs/exports.md#typed-tables):
 * a conversation's `participants` is a list of structs (name, email,
 * attended), a deal's `owner` a struct. Free-form maps (`summary`, a row's
 * `fields`, `crmAutofill`, `syncedCrmFields`) and anything of unknown shape
 * are `json`; scalar fields are left out (their values type them). Names are the destination's: under
 * `naming: snake_case` top-level fields and the fields of the elements of
 * arrays of objects are snake_case (as RecordShaper renames them); the keys
 * of a nested object are the service's.
 */
import type { z } from 'zod';
import * as read from '../api/schemas/read.js';
import type { ExportConventions, NestedType } from '../sdk/types.js';
import { SnakeNames } from './conventions.js';
import type { ExportResource } from './resources.js';

/** The detail of each resource: the list item's fields and what details add. */
const SCHEMAS: Readonly<Record<ExportResource, z.ZodObject>> = {
  conversations: read.conversationDetail,
  messages: read.messageDetail,
  rows: read.row,
  documents: read.documentItem,
  deals: read.dealDetail,
  accounts: read.accountDetail,
};

/** The nested types of a resource's records in this layout; undefined unless the layout asks for them. */
export function nestedTypesOf(resource: ExportResource, conventions: ExportConventions): Readonly<Record<string, NestedType>> | undefined {
  if (conventions.nested !== 'struct') return undefined;
  const names = conventions.naming === 'snake_case' ? new SnakeNames() : undefined;
  const out: Record<string, NestedType> = {};
  for (const [field, schema] of Object.entries(SCHEMAS[resource].shape)) {
    const type = typeOf(schema as z.ZodType, names);
    // Scalars are typed from their values; a JSON field is named so that one null in every record is JSON all the same.
    if (typeof type === 'object' || type === 'json') out[names ? names.name(field) : field] = type;
  }
  return out;
}

/** Internals of a zod schema this module reads (zod 4's `_zod.def`). */
interface Def {
  type: string;
  innerType?: z.ZodType;
  element?: z.ZodType;
  shape?: Record<string, z.ZodType>;
}

function typeOf(schema: z.ZodType, names: SnakeNames | undefined, inArray = false): NestedType {
  const def = (schema as unknown as { _zod: { def: Def } })._zod.def;
  switch (def.type) {
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'readonly':
      return typeOf(def.innerType!, names, inArray);
    case 'string':
    case 'enum':
    case 'literal':
      return 'text';
    case 'boolean':
      return 'boolean';
    case 'number':
      return (schema as z.ZodNumber).format === 'safeint' ? 'integer' : 'number';
    case 'array': {
      const element = typeOf(def.element!, names, true);
      return element === 'json' ? 'json' : { list: element };
    }
    case 'object': {
      const struct: Record<string, NestedType> = {};
      for (const [key, inner] of Object.entries(def.shape!)) {
        // RecordShaper renames the keys of the elements of arrays of objects, not those of an object.
        const type = typeOf(inner, undefined);
        // A free-form value inside keeps the whole object JSON: a STRUCT field cannot hold any shape.
        if (type === 'json') return 'json';
        struct[inArray && names ? names.name(key) : key] = type;
      }
      return { struct };
    }
    default:
      return 'json';
  }
}
