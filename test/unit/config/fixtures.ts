/** Temp projects for config tests: YAML written to a fresh directory per test. */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';
import { FerryError } from '../../../src/sdk/errors.js';
import type { ConfigIssue } from '../../../src/config/index.js';

export const DATASETS = '/work/shared/datasets';
export const SALES_PIPELINE = `${DATASETS}/crm-sales-opportunities/sales_pipeline.csv`;

const made: string[] = [];
afterEach(async () => {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** Write `files` (relative path → text) under a new temp dir; returns its path. */
export async function project(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'ferry-config-'));
  made.push(dir);
  for (const [name, text] of Object.entries(files)) {
    const file = path.join(dir, name);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, text);
  }
  return dir;
}

/** The issues of the FERRY_CONFIG_INVALID a promise rejects with. */
export async function issuesOf(promise: Promise<unknown>): Promise<{ error: FerryError; issues: ConfigIssue[] }> {
  try {
    await promise;
  } catch (error) {
    if (!(error instanceof FerryError) || error.code !== 'FERRY_CONFIG_INVALID') throw error;
    return { error, issues: (error.details.issues ?? []) as ConfigIssue[] };
  }
  throw new Error('expected loadConfig to fail');
}

/** A realistic CRM deals → rows sync, as YAML lines indented for a `syncs:` list. */
export const CRM_DEALS_SYNC = `  - name: crm-deals
    source:
      type: csv
      path: ${SALES_PIPELINE}
      primaryKey: opportunity_id
    target:
      type: row
      source: { name: crm, displayName: CRM }
      objectType:
        name: deal
        displayName: Deal
        fields:
          amount: { type: double, label: Close value }
          stage: string
      map:
        id: opportunity_id
        name: account & " — " & product
        fields:
          amount: $number(close_value)
          stage: deal_stage
`;
