/**
 * Native CRM data (deals and accounts). The service only reads these from
 * CRM integrations, so they enter the emulator through seeds, never through /v1.
 */
import { prepared, type Db } from './database.js';
import { paginate } from './paginate.js';
import type { AccountData, DealData, Page } from './types.js';

interface DealRow {
  org_id: string;
  deal_id: string;
  sort_ms: number;
  data: string;
}
interface AccountRow {
  org_id: string;
  account_id: string;
  sort_ms: number;
  data: string;
}

const timeOf = (iso: string | null): number => (iso ? Date.parse(iso) || 0 : 0);

export class CrmRepo {
  constructor(private readonly db: Db) {}

  upsertDeal(orgId: string, deal: DealData): void {
    prepared(this.db, 
        `INSERT INTO crm_deals (org_id, deal_id, sort_ms, data, account_id, account_name_lc) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT(org_id, deal_id) DO UPDATE SET sort_ms = excluded.sort_ms, data = excluded.data,
           account_id = excluded.account_id, account_name_lc = excluded.account_name_lc`,
      )
      .run(orgId, deal.dealId, timeOf(deal.createdDate), JSON.stringify(deal), deal.accountId, deal.accountName?.toLowerCase() ?? null);
  }

  upsertAccount(orgId: string, account: AccountData): void {
    prepared(this.db, 
        'INSERT INTO crm_accounts (org_id, account_id, sort_ms, data) VALUES (?, ?, ?, ?) ON CONFLICT(org_id, account_id) DO UPDATE SET sort_ms = excluded.sort_ms, data = excluded.data',
      )
      .run(orgId, account.accountId, timeOf(account.createdDate), JSON.stringify(account));
  }

  findDeal(orgId: string, dealId: string): DealData | undefined {
    const row = prepared(this.db, 'SELECT * FROM crm_deals WHERE org_id = ? AND deal_id = ?').get(orgId, dealId) as DealRow | undefined;
    return row && (JSON.parse(row.data) as DealData);
  }

  findAccount(orgId: string, accountId: string): AccountData | undefined {
    const row = prepared(this.db, 'SELECT * FROM crm_accounts WHERE org_id = ? AND account_id = ?')
      .get(orgId, accountId) as AccountRow | undefined;
    return row && (JSON.parse(row.data) as AccountData);
  }

  listDeals(orgId: string, limit: number, cursor: string | undefined, keep: (d: DealData) => boolean): Page<DealData> {
    return paginate<DealRow, DealData>(this.db, {
      list: 'deal',
      table: 'crm_deals',
      idColumn: 'deal_id',
      where: ['org_id = ?'],
      params: [orgId],
      limit,
      cursor,
      decode: (row) => JSON.parse(row.data) as DealData,
      keep,
      keyOf: (row) => ({ sortMs: row.sort_ms, id: row.deal_id }),
    });
  }

  listAccounts(orgId: string, limit: number, cursor: string | undefined, keep: (a: AccountData) => boolean): Page<AccountData> {
    return paginate<AccountRow, AccountData>(this.db, {
      list: 'account',
      table: 'crm_accounts',
      idColumn: 'account_id',
      where: ['org_id = ?'],
      params: [orgId],
      limit,
      cursor,
      decode: (row) => JSON.parse(row.data) as AccountData,
      keep,
      keyOf: (row) => ({ sortMs: row.sort_ms, id: row.account_id }),
    });
  }

  /** Deals linked to the account by accountId, or by account name when the deal has no accountId. */
  dealsOfAccount(orgId: string, account: AccountData): DealData[] {
    const rows = prepared(
      this.db,
      `SELECT data FROM crm_deals WHERE org_id = ? AND account_id = ?
       UNION ALL
       SELECT data FROM crm_deals WHERE org_id = ? AND account_id IS NULL AND account_name_lc = ?`,
    ).all(orgId, account.accountId, orgId, account.name?.toLowerCase() ?? null) as { data: string }[];
    return rows.map((r) => JSON.parse(r.data) as DealData);
  }
}
