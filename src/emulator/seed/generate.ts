/**
 * The seed generator: realistic native data (deals, accounts, conversations,
 * messages, documents) built from the public datasets in `shared/datasets`,
 * deterministic for a given RNG seed and without any network access.
 *
 * ```ts
 * const seed = generateSeed({ limit: 500 });
 * await startEmulator({ seed });
 * ```
 */
import { existsSync, readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { join, resolve } from 'node:path';
import { ferryRoot } from '../../sdk/ferry-package.js';
import { generateCalls } from './generate-calls.js';
import { crmActivityMessages, generateCrm } from './generate-crm.js';
import { generateDocuments } from './generate-documents.js';
import { generateMessages } from './generate-mail.js';
import { generateMeetings, type CrmLink } from './generate-meetings.js';
import { rngFor } from './generate-random.js';
import type { SeedDatasetInput, SeedDealInput } from './format.js';

/** `<repo>/../shared/datasets`, where the project keeps its public datasets (found the same from src/ and dist/). */
export const DEFAULT_DATASETS_DIR = resolve(ferryRoot(), '../shared/datasets');
/**
 * The demo seed as the build generated it (DEMO_OPTIONS, from the datasets
 * beside the checkout), shipped in the package: an installed ferry has no
 * shared/datasets beside it, and `--seed demo` loads this instead.
 */
export const SHIPPED_DEMO_SEED = resolve(ferryRoot(), 'dist/demo-seed.json.gz');

/** The demo seed: generated from the datasets when they are there, else the one shipped with the package. */
export function demoSeed(): SeedDatasetInput {
  if (existsSync(DEFAULT_DATASETS_DIR)) return generateSeed(DEMO_OPTIONS);
  if (existsSync(SHIPPED_DEMO_SEED)) return JSON.parse(gunzipSync(readFileSync(SHIPPED_DEMO_SEED)).toString('utf8')) as SeedDatasetInput;
  throw new Error(
    `the demo seed needs the public datasets at ${DEFAULT_DATASETS_DIR} or the demo seed a packed ferry ships (${SHIPPED_DEMO_SEED}), and neither is there: ` +
      'pass --datasets <dir> (a folder holding crm-sales-opportunities/, harper-valley-calls/, …) or --seed <file> (from `ferry emulator seed --out`)',
  );
}
export const DEFAULT_RNG_SEED = 42;
export const DEFAULT_ORG_DOMAIN = 'ferry-demo.example';
/** Number of `salesforce_crm` activity messages logged on open deals. */
const CRM_ACTIVITY_MESSAGES = 20;
/** Accounts (and their deals) that external meetings are linked to. */
const CRM_LINKS = 12;

/**
 * What `--seed demo` generates: every account, conversation, e-mail and
 * document, and a sample of 2,000 deals (all stages). The sample loads in
 * about half the time of all 8,800 and leaves some accounts with closed
 * deals only, so both branches of latestDeal show; with all deals every
 * account has an open one.
 */
export const DEMO_OPTIONS: Readonly<GenerateSeedOptions> = { dealLimit: 2000 };

export interface GenerateSeedOptions {
  /** Folder holding `crm-sales-opportunities/`, `harper-valley-calls/`, `qmsum/`, `enron-mbox/`, `documents/`. @default DEFAULT_DATASETS_DIR */
  datasetsDir?: string;
  /** Organization the data is for; without it the emulator loads it into its default organization. */
  orgId?: string;
  /** RNG seed: the same seed (and datasets) always gives the same output. @default 42 */
  seed?: number;
  /** E-mail domain of the organization's people (sales agents, support agents, meeting roles). @default 'ferry-demo.example' */
  orgDomain?: string;
  /** Caps deals and messages alike (accounts, conversations and documents are few). @default no cap */
  limit?: number;
  /** Deals to take, a seeded sample across all stages. @default limit, else all 8,800 */
  dealLimit?: number;
  /** Messages to keep after de-duplication, newest first. @default limit, else all */
  messageLimit?: number;
}

export interface SeedSummary {
  deals: number;
  accounts: number;
  conversations: number;
  messages: number;
  documents: number;
}

/** External meetings are linked alternately to an account and to the newest open deal of another account. */
function crmLinks(deals: readonly SeedDealInput[], seed: number): CrmLink[] {
  const accounts = [...new Map(deals.filter((d) => d.accountId && d.accountName).map((d) => [d.accountId as string, d.accountName as string]))];
  accounts.sort((a, b) => a[0].localeCompare(b[0]));
  return rngFor(seed, 'crm-links')
    .sample(accounts, CRM_LINKS)
    .map(([id, name], i): CrmLink => {
      const open = deals
        .filter((d) => d.accountId === id && d.closed === false)
        .sort((a, b) => String(b.createdDate).localeCompare(String(a.createdDate)))[0];
      return i % 2 === 1 && open ? { id: open.dealId, name: open.name ?? open.dealId, type: 'opportunity' } : { id, name, type: 'account' };
    });
}

export function generateSeed(options: GenerateSeedOptions = {}): SeedDatasetInput {
  const dir = resolve(options.datasetsDir ?? DEFAULT_DATASETS_DIR);
  if (!existsSync(dir)) throw new Error(`datasets folder ${dir} does not exist (pass datasetsDir / --datasets)`);
  const has = (name: string) => existsSync(join(dir, name));
  const seed = options.seed ?? DEFAULT_RNG_SEED;
  const orgDomain = options.orgDomain ?? DEFAULT_ORG_DOMAIN;

  const crm = has('crm-sales-opportunities')
    ? generateCrm(dir, { seed, orgDomain, dealLimit: options.dealLimit ?? options.limit })
    : { deals: [], accounts: [] };
  const conversations = [
    ...(has('harper-valley-calls') ? generateCalls(dir, { orgDomain }) : []),
    ...(has('qmsum') ? generateMeetings(dir, { seed, orgDomain, crmLinks: crmLinks(crm.deals, seed) }) : []),
  ];
  const messages = [
    ...(has('enron-mbox') ? generateMessages(dir, { messageLimit: options.messageLimit ?? options.limit }) : []),
    ...crmActivityMessages(crm.deals, CRM_ACTIVITY_MESSAGES),
  ];
  const documents = has('documents') ? generateDocuments(dir, { seed }) : [];
  return {
    ...(options.orgId ? { orgId: options.orgId } : {}),
    deals: crm.deals,
    accounts: crm.accounts,
    conversations,
    messages,
    documents,
  };
}

export function summarizeSeed(seed: SeedDatasetInput): SeedSummary {
  return {
    deals: seed.deals?.length ?? 0,
    accounts: seed.accounts?.length ?? 0,
    conversations: seed.conversations?.length ?? 0,
    messages: seed.messages?.length ?? 0,
    documents: seed.documents?.length ?? 0,
  };
}
