/** /v1/health */
import { ok, type Handler } from '../http/context.js';

export const health: Handler<'health'> = (ctx) => ok({ status: 'ok', org_id: ctx.principal.orgId, scopes: ctx.principal.scopes });
