/**
 * A deals CSV row as the row body ferry sends for it, written by hand (not
 * ferry's mapping): the bench's own clients send these, byte for byte what
 * ferry sends, so their figures and ferry's are for the same bodies.
 */

/** A row of the deals CSV (bench/push/deals.ts), as csv-parse gives it. */
export type Deal = Record<'opportunity_id' | 'sales_agent' | 'product' | 'account' | 'deal_stage' | 'close_date' | 'close_value', string>;

/** Keys in sorted order at every level, as ferry sends them (the canonical JSON its fingerprint hashes). */
export function dealBody(d: Deal, sourceId: string, objectTypeId: string): string {
  const fields: Record<string, { fieldType: string; value: unknown }> = {};
  const put = (name: string, value: unknown, fieldType: string) => {
    if (value !== '') fields[name] = { fieldType, value };
  };
  put('agent', d.sales_agent, 'string');
  put('closed', d.close_date, 'date');
  put('product', d.product, 'string');
  put('stage', d.deal_stage, 'string');
  put('value', d.close_value === '' ? '' : Number(d.close_value), 'int');
  const name = d.account ? `${d.account} – ${d.product}` : d.product;
  return JSON.stringify({ fields, id: d.opportunity_id, name, objectTypeId, public: true, sourceId });
}

/** The ids of the `crm` source and its `deal` object type, which a ferry run of the deals sync set up. */
export async function dealTargetIds(getJson: <T>(path: string) => Promise<T>): Promise<{ sourceId: string; objectTypeId: string }> {
  const { sources } = await getJson<{ sources: { id: string; name: string }[] }>('/v1/sources?name=crm');
  const sourceId = sources.find((s) => s.name === 'crm')!.id;
  const { objectTypes } = await getJson<{ objectTypes: { id: string; name: string }[] }>(`/v1/object-types?sourceId=${sourceId}`);
  return { sourceId, objectTypeId: objectTypes.find((t) => t.name === 'deal')!.id };
}
