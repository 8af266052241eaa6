/** Sources, object types and native CRM data → their read shapes. */
import type {
  AccountListItem,
  DealDetail,
  DealListItem,
  ObjectTypeResponse,
  SourceResponse,
} from '../../api/schemas/read.js';
import type { z } from 'zod';
import type * as read from '../../api/schemas/read.js';
import type { AccountData, DealData, ObjectTypeEntity, SourceEntity } from '../store/types.js';

const iso = (ms: number) => new Date(ms).toISOString();

export function sourceView(s: SourceEntity): SourceResponse {
  return { id: s.id, name: s.name, displayName: s.displayName, createdAt: iso(s.createdMs), updatedAt: iso(s.updatedMs) };
}

export function objectTypeView(t: ObjectTypeEntity): ObjectTypeResponse {
  return {
    id: t.id,
    sourceId: t.sourceId,
    name: t.name,
    displayName: t.displayName,
    fieldDefinitions: t.fieldDefinitions.map((f) => ({ name: f.name, fieldType: f.fieldType, label: f.label, required: f.required })),
    createdAt: iso(t.createdMs),
    updatedAt: iso(t.updatedMs),
  };
}

export function dealListItem(d: DealData): DealListItem {
  return {
    dealId: d.dealId,
    name: d.name,
    accountName: d.accountName,
    stage: d.stage,
    pipeline: d.pipeline,
    amount: d.amount,
    closeDate: d.closeDate,
    closed: d.closed,
    createdDate: d.createdDate,
    lastActivityDate: d.lastActivityDate,
    owner: d.owner,
  };
}

export function dealDetail(d: DealData): DealDetail {
  return { ...dealListItem(d), summary: d.summary, crmAutofill: d.crmAutofill, contacts: d.contacts };
}

const created = (d: DealData) => (d.createdDate ? Date.parse(d.createdDate) || 0 : 0);

/** The spec's rule: the latest open deal by creation date, else the latest closed one. */
export function pickLatestDeal(deals: readonly DealData[]): DealData | undefined {
  const newest = (list: DealData[]) =>
    list.reduce<DealData | undefined>((best, d) => (best === undefined || created(d) > created(best) ? d : best), undefined);
  return newest(deals.filter((d) => d.closed !== true)) ?? newest(deals.filter((d) => d.closed === true));
}

export function accountListItem(a: AccountData, deals: readonly DealData[]): AccountListItem {
  const latest = pickLatestDeal(deals);
  return {
    accountId: a.accountId,
    name: a.name,
    website: a.website,
    owner: a.owner,
    createdDate: a.createdDate,
    lastActivityDate: a.lastActivityDate,
    latestDeal: latest
      ? { dealId: latest.dealId, name: latest.name, stage: latest.stage, amount: latest.amount, closeDate: latest.closeDate }
      : null,
  };
}

export function accountDetail(a: AccountData, deals: readonly DealData[]): z.infer<typeof read.accountDetail> {
  return { ...accountListItem(a, deals), contacts: a.contacts, syncedCrmFields: a.syncedCrmFields };
}
