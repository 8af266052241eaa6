import { z } from 'zod';
import { FIELD_TYPES } from '../../sdk/types.js';
import { isIsoDate, isIsoDateTime, parseRequestTimestamp, parseTimestamp } from '../timestamp.js';

export const UUID_PATTERN = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
export const uuid = z.string().regex(UUID_PATTERN, 'must be a UUID');

export const fieldType = z.enum(FIELD_TYPES);
export type FieldTypeValue = z.infer<typeof fieldType>;

/** A timestamp schema normalising what `parse` reads (epoch ms or undefined) to ISO 8601 UTC. */
function timestampSchema(parse: (value: unknown) => number | undefined, expected: string) {
  return z.union([z.string(), z.number()]).transform((value, ctx) => {
    const ms = parse(value);
    if (ms === undefined) {
      ctx.addIssue({ code: 'custom', message: `must be ${expected}; found ${JSON.stringify(value)}` });
      return z.NEVER;
    }
    return new Date(ms).toISOString();
  });
}

/**
 * A request-body timestamp (an ISO 8601 string, or a number of Unix seconds
 * or milliseconds), normalised to an ISO 8601 UTC string. A digit string is
 * not ISO 8601 and is refused (the stricter reading of the spec): send the
 * number itself.
 */
export const timestampInput = timestampSchema(
  parseRequestTimestamp,
  'an ISO 8601 string (e.g. 2024-06-10T09:30:00Z) or a number of Unix seconds or milliseconds (a number, not a digit string)',
);

/** A timestamp read leniently (digit strings and bare dates too), for seed files written by hand. */
export const lenientTimestampInput = timestampSchema(
  parseTimestamp,
  'an ISO 8601 string, Unix seconds or Unix milliseconds',
);

/** An ISO 8601 date or date-time in a query string (a date is midnight UTC). */
export const isoDateTime = z
  .string()
  .refine((value) => isIsoDate(value) || isIsoDateTime(value), 'must be an ISO 8601 date or date-time');

/** An absolute http(s) URL: what "fetchable URL" means in the spec. */
export const httpUrl = z.string().refine(isHttpUrl, 'must be an absolute http(s) URL, e.g. https://example.com/file.pdf');

export function isHttpUrl(value: string): boolean {
  if (!/^https?:\/\//i.test(value)) return false;
  try {
    return new URL(value).hostname !== '';
  } catch {
    return false;
  }
}

/** A MIME type `type/subtype`, optionally with parameters (`text/plain; charset=utf-8`). */
const MIME_TOKEN = "[A-Za-z0-9!#$&^_.+-]+";
const MIME_TYPE = new RegExp(`^${MIME_TOKEN}/${MIME_TOKEN}(\\s*;\\s*${MIME_TOKEN}=(?:${MIME_TOKEN}|"[^"]*"))*$`);
export const mimeType = z.string().regex(MIME_TYPE, 'must be a MIME type such as text/plain or application/pdf');

export const EMAIL_PATTERN = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;
export const email = z.string().regex(EMAIL_PATTERN, 'must be an e-mail address');

export const pagination = z.looseObject({
  nextCursor: z.string().nullable().default(null),
  hasMore: z.boolean().default(false),
});
export type Pagination = z.infer<typeof pagination>;

export const PAGE_SIZE_MAX = 50;
/** The spec's "10 MB", read as the smaller 10,000,000 bytes (not 10 MiB), so a body ferry accepts the service accepts. */
export const BODY_LIMIT_BYTES = 10_000_000;

export const LIMITS = {
  transcriptSentences: 10_000,
  participants: { min: 1, max: 1000 },
  conversationMaxMillis: 10 * 60 * 60 * 1000,
  messageBodyChars: 100_000,
  recipients: { min: 1, max: 1000 },
  rowName: { min: 1, max: 1000 },
  rowFields: { min: 1, max: 50 },
  rowNameFilter: 1000,
  documentNameFilter: 255,
  name: { min: 1, max: 255 },
  fieldDefinitions: { min: 1, max: 50 },
} as const;

export const EXTERNAL_CATEGORIES = [
  'prospect_discovery', 'prospect_demo', 'prospect_trial', 'prospect_negotiation', 'closed_lost', 'closed_won',
  'customer_onboarding', 'customer_support', 'customer_checkin', 'customer_commercials', 'interview',
  'user_research', 'partner_call', 'consulting_call', 'advisor_call', 'investor_call', 'vendor_call', 'other',
] as const;
export const INTERNAL_CATEGORIES = [
  'one_on_one', 'sales_team', 'customer_service_team', 'marketing_team', 'product_team', 'engineering_team',
  'it_team', 'hr_team', 'operations_team', 'finance_team', 'legal_team', 'consulting_team', 'company_wide', 'other',
] as const;
/** Values historical conversations may still return. */
export const LEGACY_CATEGORIES = { customer_team: 'customer_service_team', investment_team: 'finance_team' } as const;

export const NATIVE_CONVERSATION_SOURCES = [
  'service', 'gong', 'chorus', 'fathom', 'grain', 'mindtickle', 'avoma', 'fireflies', 'zoho_meetings',
  'uploaded_call', 'uploaded_transcript', 'zoom_phone', 'outreach_dialer', 'nooks_dialer', 'ringcentral_dialer',
  'aircall_dialer', 'hubspot_dialer', 'cloudtalk_dialer',
] as const;
export const NATIVE_MESSAGE_SOURCES = [
  'gmail', 'outlook', 'zoho_mail', 'salesforce_crm', 'hubspot_crm', 'pipedrive_crm', 'dynamics_crm', 'zoho_crm',
] as const;
export const NATIVE_DOCUMENT_SOURCES = ['chat_upload', 'mailbox_attachment'] as const;

/**
 * A read-side `sourceId`: a source UUID or one of the resource's native
 * source strings. As a list filter anything else (a typo, a source *name*)
 * is refused, since it could only ever match nothing; items carry the same
 * values, so a filter round-trips.
 */
export function sourceIdIn(natives: readonly string[]) {
  const allowed = natives.length > 0 ? `a source UUID or one of ${natives.join(', ')}` : 'a source UUID';
  return z.string().superRefine((value, ctx) => {
    if (uuid.safeParse(value).success || natives.includes(value)) return;
    ctx.addIssue({ code: 'custom', message: `must be ${allowed}; found ${JSON.stringify(value)}` });
  });
}

export const SCOPES = ['read', 'ingest', 'ask_assistant'] as const;
export type Scope = (typeof SCOPES)[number];
