/** /v1/deals and /v1/accounts: native CRM data, read-only. */
import { notFound } from '../http/errors.js';
import { ok, type Handler } from '../http/context.js';
import type { AccountData, DealData } from '../store/types.js';
import { accountDetail, accountListItem, dealDetail, dealListItem } from '../views/resources.js';
import { boundMs, includesCi } from './shared.js';

const within = (iso: string | null, from: number | undefined, to: number | undefined): boolean => {
  if (from === undefined && to === undefined) return true;
  if (!iso) return false;
  const at = Date.parse(iso);
  return (from === undefined || at >= from) && (to === undefined || at <= to);
};

export const listDeals: Handler<'listDeals'> = (ctx) => {
  const q = ctx.query;
  const [closeFrom, closeTo] = [boundMs(q.closeDateAfter), boundMs(q.closeDateBefore)];
  const [activityFrom, activityTo] = [boundMs(q.lastActivityAfter), boundMs(q.lastActivityBefore)];
  const keep = (d: DealData) =>
    (q.name === undefined || includesCi(d.name, q.name)) &&
    (q.stage === undefined || includesCi(d.stage, q.stage)) &&
    (q.closed === undefined || (d.closed === true) === q.closed) &&
    (q.owner === undefined || includesCi(d.owner?.name, q.owner)) &&
    within(d.closeDate, closeFrom, closeTo) &&
    within(d.lastActivityDate, activityFrom, activityTo) &&
    (q.amountMin === undefined || (d.amount !== null && d.amount >= q.amountMin)) &&
    (q.amountMax === undefined || (d.amount !== null && d.amount <= q.amountMax));
  const page = ctx.app.store.crm.listDeals(ctx.principal.orgId, q.limit, q.cursor, keep);
  return ok({ deals: page.items.map(dealListItem), pagination: { nextCursor: page.nextCursor, hasMore: page.hasMore } });
};

export const getDeal: Handler<'getDeal'> = (ctx) => {
  const deal = ctx.app.store.crm.findDeal(ctx.principal.orgId, ctx.params.dealId ?? '');
  if (!deal) throw notFound(`deal ${ctx.params.dealId ?? ''} not found`);
  return ok(dealDetail(deal));
};

export const listAccounts: Handler<'listAccounts'> = (ctx) => {
  const q = ctx.query;
  const [createdFrom, createdTo] = [boundMs(q.createdAfter), boundMs(q.createdBefore)];
  const [activityFrom, activityTo] = [boundMs(q.lastActivityAfter), boundMs(q.lastActivityBefore)];
  const keep = (a: AccountData) =>
    (q.name === undefined || includesCi(a.name, q.name)) &&
    (q.website === undefined || includesCi(a.website, q.website)) &&
    (q.owner === undefined || includesCi(a.owner?.name, q.owner) || includesCi(a.owner?.email, q.owner)) &&
    within(a.createdDate, createdFrom, createdTo) &&
    within(a.lastActivityDate, activityFrom, activityTo);
  const orgId = ctx.principal.orgId;
  const page = ctx.app.store.crm.listAccounts(orgId, q.limit, q.cursor, keep);
  return ok({
    accounts: page.items.map((a) => accountListItem(a, ctx.app.store.crm.dealsOfAccount(orgId, a))),
    pagination: { nextCursor: page.nextCursor, hasMore: page.hasMore },
  });
};

export const getAccount: Handler<'getAccount'> = (ctx) => {
  const orgId = ctx.principal.orgId;
  const account = ctx.app.store.crm.findAccount(orgId, ctx.params.accountId ?? '');
  if (!account) throw notFound(`account ${ctx.params.accountId ?? ''} not found`);
  return ok(accountDetail(account, ctx.app.store.crm.dealsOfAccount(orgId, account)));
};
