/** Error bodies the service returns. */
import { z } from 'zod';

export const ERROR_CODES = [
  'validation_error',
  'forbidden',
  'conflict',
  'not_found',
  'length_required',
  'payload_too_large',
] as const;
export type ServiceErrorCode = (typeof ERROR_CODES)[number];

/** POST/PATCH/DELETE: `{detail: {error, message, field, request_id}}`. */
export const structuredErrorBody = z.object({
  detail: z.looseObject({
    error: z.string(),
    message: z.string(),
    field: z.string().nullable().optional(),
    request_id: z.string().optional(),
  }),
});

/** GET: `{detail: "..."}`. */
export const messageErrorBody = z.object({ detail: z.string() });

/** 422 on bad query parameters: `{detail: [{loc, msg, type}]}`. */
export const validationErrorBody = z.object({
  detail: z.array(
    z.looseObject({
      loc: z.array(z.union([z.string(), z.number()])),
      msg: z.string(),
      type: z.string(),
    }),
  ),
});

export type StructuredErrorBody = z.infer<typeof structuredErrorBody>;
export type ValidationErrorBody = z.infer<typeof validationErrorBody>;

/** Turn a zod issue path into the service's `field` notation: `transcript.3.timestamp`. */
export function issuePath(path: readonly PropertyKey[]): string | null {
  return path.length === 0 ? null : path.map(String).join('.');
}
