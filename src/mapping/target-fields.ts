/**
 * Top-level `map:` keys the target request does not have. zod drops unknown
 * keys silently, so a typo (`dispayName`) would vanish from every body;
 * checking the spec once at load time turns it into a config error instead.
 */
import type { MapSpec } from '../config/schema.js';
import { conversationRequest, documentRequest, messageRequest, rowRequest } from '../api/schemas/write.js';
import type { TargetKind } from './build.js';
import type { CompileError } from './compile.js';

const FIELDS: Record<TargetKind, readonly string[]> = {
  conversation: Object.keys(conversationRequest.shape),
  message: Object.keys(messageRequest.shape),
  row: Object.keys(rowRequest.shape),
  document: Object.keys(documentRequest.shape),
};
const INJECTED = new Set(['sourceId', 'objectTypeId']);

/** The fields a target's request body has. */
export function targetFieldNames(kind: TargetKind): readonly string[] {
  return FIELDS[kind];
}

/** One error per `map:` key the target does not take or that ferry sets itself. */
export function checkTargetFields(kind: TargetKind, spec: MapSpec): CompileError[] {
  const allowed = FIELDS[kind];
  const errors: CompileError[] = [];
  for (const key of Object.keys(spec)) {
    if (INJECTED.has(key)) {
      errors.push({ path: [key], message: `${key} is set by ferry; remove it from map` });
    } else if (!allowed.includes(key)) {
      const settable = allowed.filter((f) => !INJECTED.has(f));
      errors.push({ path: [key], message: `a ${kind} has no field "${key}"; expected one of ${settable.join(', ')}` });
    }
  }
  return errors;
}
