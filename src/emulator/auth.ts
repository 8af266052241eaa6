/**
 * API keys. With a keys file only its keys are valid; without one, a
 * development key for a development organization is generated once and kept
 * in the database, so a file-backed emulator keeps answering to it.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Scope } from '../api/schemas/common.js';
import { SCOPES } from '../api/schemas/common.js';
import { ApiError } from './http/errors.js';
import type { KeysFile } from './options.js';
import type { MetaRepo } from './store/meta.js';

export interface Principal {
  key: string;
  orgId: string;
  scopes: Scope[];
}

export class KeyRing {
  private readonly keys: Map<string, { orgId: string; scopes: Scope[]; revoked: boolean }>;
  readonly devKey?: string;
  readonly devOrgId?: string;

  constructor(file: KeysFile | undefined, meta: MetaRepo) {
    this.keys = new Map();
    if (file) {
      for (const [key, entry] of Object.entries(file)) {
        this.keys.set(key, { orgId: entry.orgId, scopes: [...entry.scopes], revoked: entry.revoked === true });
      }
      return;
    }
    this.devKey = meta.getOrCreate('dev_key', () => `sk_live_${randomBytes(24).toString('base64url')}`);
    this.devOrgId = meta.getOrCreate('dev_org_id', () => randomUUID());
    this.keys.set(this.devKey, { orgId: this.devOrgId, scopes: [...SCOPES], revoked: false });
  }

  /** Organizations the keys belong to (the seed's default targets). */
  orgIds(): string[] {
    return [...new Set([...this.keys.values()].map((k) => k.orgId))];
  }

  /**
   * The caller behind the Authorization header, checked against `scope`
   * (`null`: any valid key). Throws 403 without a Bearer header or scope, 401 for unknown or revoked keys.
   */
  authenticate(req: IncomingMessage, scope: Scope | null): Principal {
    const token = bearerToken(req);
    if (token === undefined) throw new ApiError(403, 'forbidden', 'Not authenticated', null, true);
    const entry = this.keys.get(token);
    if (!entry) throw new ApiError(401, null, 'Invalid API key', null, true);
    if (entry.revoked) throw new ApiError(401, null, 'API key has been revoked', null, true);
    if (scope !== null && !entry.scopes.includes(scope)) {
      throw new ApiError(403, 'forbidden', `API key missing required scope: ${scope}`, null, true);
    }
    return { key: token, orgId: entry.orgId, scopes: [...entry.scopes] };
  }
}

export function bearerToken(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}
