/**
 * Deals and accounts from the Maven "CRM Sales Opportunities" dataset
 * (`crm-sales-opportunities/`). Its quirks are handled here: `GTXPro` in the
 * pipeline is `GTX Pro` in products.csv, open deals have no close date or
 * value, Prospecting deals have no engage date, 1,425 open deals have no
 * account. Typos (`technolgy`, `Philipines`) are kept: synced CRM fields
 * show what the CRM holds.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { addDays, dayMs, iso, officeHour, rngFor, type Rng } from './generate-random.js';
import { emailOf, inventContacts, slugify } from './generate-people.js';
import type { SeedAccountInput, SeedContactInput, SeedDealInput, SeedMessageInput } from './format.js';

interface PipelineRow {
  opportunity_id: string;
  sales_agent: string;
  product: string;
  account: string;
  deal_stage: string;
  engage_date: string;
  close_date: string;
  close_value: string;
}
interface AccountRow {
  account: string;
  sector: string;
  year_established: string;
  revenue: string;
  employees: string;
  office_location: string;
  subsidiary_of: string;
}
interface ProductRow {
  product: string;
  series: string;
  sales_price: string;
}

export interface CrmSeed {
  deals: SeedDealInput[];
  accounts: SeedAccountInput[];
}

export interface CrmOptions {
  seed: number;
  orgDomain: string;
  /**
   * Deals to take: a deterministic sample (by RNG seed) in the file's order,
   * so every stage stays represented. Accounts with few open deals may keep
   * only closed ones, which shows latestDeal's closed branch. @default all
   */
  dealLimit?: number | undefined;
}

/** The pipeline's spelling → products.csv's. */
const PRODUCT_ALIASES: Record<string, string> = { GTXPro: 'GTX Pro' };
/** The last day the dataset covers; open deals' activity never goes past it. */
const DATASET_END_MS = Date.parse('2017-12-31T00:00:00Z');
const CLOSED_STAGES = new Set(['Won', 'Lost']);

const NEXT_STEPS: Record<string, readonly string[]> = {
  Prospecting: ['Qualify the lead', 'Find the decision maker', 'Book a discovery call', 'Share the product brochure'],
  Engaging: ['Send a quote', 'Book a demo with their technical team', 'Confirm the budget owner', 'Agree on a delivery date', 'Send references from the same sector'],
  Won: ['Hand over to onboarding', 'Schedule a check-in after 30 days', 'Ask for a reference'],
  Lost: ['Record the loss reason', 'Revisit in the next budget cycle'],
};
const RISKS: Record<string, readonly string[]> = {
  Prospecting: ['No engagement yet', 'Decision maker unknown', 'No budget confirmed'],
  Engaging: ['A competitor is also pitching', 'Budget approval pending', 'Price above their expectation', 'Champion may leave the company'],
  Won: [],
  Lost: ['Chose a competitor', 'Project cancelled', 'Price too high'],
};

function readCsv<T>(path: string): T[] {
  return parse<T>(readFileSync(path, 'utf8'), { columns: true, skip_empty_lines: true, trim: true });
}

const money = (n: number) => `$${n.toLocaleString('en-US')}`;

function dealSummary(row: PipelineRow, product: string, price: number | undefined, rng: Rng): Record<string, unknown> {
  const who = row.account || 'an unassigned account';
  const stage = row.deal_stage;
  const value = Number(row.close_value);
  const headline =
    stage === 'Won'
      ? `${who} bought ${product} for ${money(value)}.`
      : stage === 'Lost'
        ? `${who} decided against ${product}.`
        : stage === 'Engaging'
          ? `${who} is evaluating ${product}${price ? ` (list price ${money(price)})` : ''}.`
          : `${product} is a prospect for ${who}; no engagement yet.`;
  return {
    headline,
    nextSteps: rng.sample(NEXT_STEPS[stage] ?? [], 2),
    risks: rng.sample(RISKS[stage] ?? [], stage === 'Engaging' ? 2 : 1),
  };
}

/** Suggested CRM updates the service would offer for an open deal; none for closed ones. */
function dealAutofill(row: PipelineRow, price: number | undefined, createdMs: number, rng: Rng): Record<string, unknown> | null {
  if (CLOSED_STAGES.has(row.deal_stage)) return null;
  return {
    stage: row.deal_stage === 'Prospecting' ? 'Engaging' : 'Won',
    amount: price ?? null,
    closeDate: iso(addDays(createdMs, rng.int(30, 120))),
  };
}

/** `limit` rows chosen by a seeded shuffle, kept in their original order. */
function sampleRows(rows: readonly PipelineRow[], limit: number | undefined, seed: number): PipelineRow[] {
  if (limit === undefined || limit >= rows.length) return [...rows];
  const ranked = rows.map((row, i) => ({ i, rank: rngFor(seed, 'deal-sample', row.opportunity_id).next() }));
  const keep = new Set(ranked.sort((a, b) => a.rank - b.rank).slice(0, limit).map((r) => r.i));
  return rows.filter((_, i) => keep.has(i));
}

export function generateCrm(dir: string, options: CrmOptions): CrmSeed {
  const base = join(dir, 'crm-sales-opportunities');
  const pipeline = readCsv<PipelineRow>(join(base, 'sales_pipeline.csv'));
  const accountRows = readCsv<AccountRow>(join(base, 'accounts.csv'));
  const prices = new Map(readCsv<ProductRow>(join(base, 'products.csv')).map((p) => [p.product, Number(p.sales_price)]));
  const rows = sampleRows(pipeline, options.dealLimit, options.seed);

  const slugs = new Map(accountRows.map((a) => [a.account, slugify(a.account)]));
  const contactsOf = new Map<string, Required<SeedContactInput>[]>();
  for (const a of accountRows) {
    const slug = slugs.get(a.account) ?? slugify(a.account);
    contactsOf.set(a.account, inventContacts(rngFor(options.seed, 'account-contacts', slug), `${slug}.com`));
  }
  const owner = (agent: string) => ({ name: agent, email: emailOf(agent, options.orgDomain) });
  const world: CrmWorld = { seed: options.seed, prices, slugs, contactsOf, owner, dealsByAccount: new Map() };

  const deals = rows.map((row) => dealOf(row, world));
  for (const d of deals) {
    if (!d.accountName) continue;
    const list = world.dealsByAccount.get(d.accountName) ?? [];
    list.push(d);
    world.dealsByAccount.set(d.accountName, list);
  }
  const accounts = accountRows.map((a) => accountOf(a, world));
  return { deals, accounts };
}

/** What the deals and accounts of one generated CRM share. */
interface CrmWorld {
  seed: number;
  prices: Map<string, number>;
  slugs: Map<string, string>;
  contactsOf: Map<string, Required<SeedContactInput>[]>;
  owner: (agent: string) => { name: string; email: string };
  dealsByAccount: Map<string, SeedDealInput[]>;
}

function dealOf(row: PipelineRow, world: CrmWorld): SeedDealInput {
  const rng = rngFor(world.seed, 'deal', row.opportunity_id);
  const product = PRODUCT_ALIASES[row.product] ?? row.product;
  const price = world.prices.get(product);
  const closed = CLOSED_STAGES.has(row.deal_stage);
  const engaged = dayMs(row.engage_date);
  const closedOn = dayMs(row.close_date);
  // Prospecting deals have no engage date: they were created in the dataset's last quarter.
  const createdMs = officeHour(rng, Number.isNaN(engaged) ? addDays(DATASET_END_MS, -rng.int(0, 90)) : engaged);
  const lastActivityMs = closed && !Number.isNaN(closedOn)
    ? officeHour(rng, closedOn)
    : Math.min(DATASET_END_MS + 17 * 3_600_000, addDays(createdMs, rng.int(0, row.deal_stage === 'Engaging' ? 90 : 14)));
  const accountContacts = row.account ? (world.contactsOf.get(row.account) ?? []) : [];
  return {
    dealId: row.opportunity_id,
    name: row.account ? `${row.account} – ${product}` : product,
    accountId: row.account ? (world.slugs.get(row.account) ?? slugify(row.account)) : null,
    accountName: row.account || null,
    stage: row.deal_stage,
    pipeline: 'Sales',
    amount: closed && row.close_value !== '' ? Number(row.close_value) : null,
    closeDate: Number.isNaN(closedOn) ? null : iso(closedOn),
    closed,
    createdDate: iso(createdMs),
    lastActivityDate: iso(lastActivityMs),
    owner: world.owner(row.sales_agent),
    summary: dealSummary(row, product, price, rng),
    crmAutofill: dealAutofill(row, price, createdMs, rng),
    contacts: rng.sample(accountContacts, rng.int(1, 2)),
  };
}

function accountOf(a: AccountRow, world: CrmWorld): SeedAccountInput {
  const slug = world.slugs.get(a.account) ?? slugify(a.account);
  const rng = rngFor(world.seed, 'account', slug);
  const own = world.dealsByAccount.get(a.account) ?? [];
  const perAgent = new Map<string, number>();
  for (const d of own) perAgent.set(d.owner?.name ?? '', (perAgent.get(d.owner?.name ?? '') ?? 0) + 1);
  // The agent with most deals on the account owns it; ties go to the first name alphabetically.
  const top = [...perAgent].sort((x, y) => y[1] - x[1] || x[0].localeCompare(y[0]))[0]?.[0];
  const lastActivity = own.reduce<string | null>(
    (latest, d) => (typeof d.lastActivityDate === 'string' && (latest === null || d.lastActivityDate > latest) ? d.lastActivityDate : latest),
    null,
  );
  const year = Number(a.year_established);
  return {
    accountId: slug,
    name: a.account,
    website: `https://${slug}.com`,
    owner: top ? world.owner(top) : null,
    createdDate: Number.isInteger(year) ? iso(Date.UTC(year, rng.int(0, 11), rng.int(1, 28))) : null,
    lastActivityDate: lastActivity,
    contacts: world.contactsOf.get(a.account) ?? [],
    syncedCrmFields: {
      Sector: a.sector || null,
      Revenue: a.revenue === '' ? null : Number(a.revenue),
      Employees: a.employees === '' ? null : Number(a.employees),
      'Office Location': a.office_location || null,
      'Subsidiary Of': a.subsidiary_of || null,
    },
  };
}

/**
 * E-mails the CRM integration logged on open deals, as native
 * `salesforce_crm` messages. They show in lists; their detail answers 400,
 * since the service does not serve CRM-logged activity through /v1/messages/{id}.
 */
export function crmActivityMessages(deals: readonly SeedDealInput[], count: number): SeedMessageInput[] {
  return deals
    .filter((d) => d.closed === false && d.accountName && (d.contacts?.length ?? 0) > 0 && d.owner?.email)
    .slice(0, count)
    .map((d) => {
      const summary = d.summary ?? {};
      const steps = Array.isArray(summary.nextSteps) ? summary.nextSteps.map(String) : [];
      return {
        sourceId: 'salesforce_crm',
        remoteId: `activity-${d.dealId}`,
        threadId: `deal-${d.dealId}`,
        subject: `Follow-up: ${d.name ?? d.dealId}`,
        sender: { name: d.owner?.name ?? null, email: d.owner?.email ?? null },
        recipients: (d.contacts ?? []).map((c) => ({ name: c.name ?? null, email: c.email ?? null })),
        body: [`Hello,`, '', String(summary.headline ?? ''), ...steps.map((s) => `- ${s}`), '', `Best regards,`, d.owner?.name ?? ''].join('\n'),
        createdAt: String(d.lastActivityDate ?? d.createdDate),
      };
    });
}
