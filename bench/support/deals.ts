/**
 * The push bench's input: a CSV of N CRM deals (rows of the shared dataset
 * with unique ids), and the ferry.yaml that maps them to 7-field rows.
 */
import { createWriteStream, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const DATASET = resolve(import.meta.dirname, '../../../shared/datasets/crm-sales-opportunities/sales_pipeline.csv');

/**
 * Writes `rows` deals with ids `${prefix}0`, `${prefix}1`, …, so that files with different prefixes never share an id;
 * `idOf` gives other ids (random-looking ones, say).
 */
export async function writeDealsCsv(path: string, rows: number, prefix = 'D', idOf = (i: number) => `${prefix}${i}`): Promise<void> {
  const [header, ...lines] = readFileSync(DATASET, 'utf8').split(/\r?\n/).filter((l) => l.length > 0);
  const out = createWriteStream(path);
  out.write(`${header}\n`);
  for (let i = 0; i < rows; i++) {
    const line = `${lines[i % lines.length]!.replace(/^[^,]+/, idOf(i))}\n`;
    if (!out.write(line)) await new Promise<void>((r) => out.once('drain', () => r()));
  }
  await new Promise<void>((r) => out.end(r));
}

/** Each one left out is left out of ferry.yaml too: the defaults (the adaptive limits unbounded). */
export interface PushSettings {
  concurrency?: number | undefined;
  maxRequestsPerSecond?: number | undefined;
}

/**
 * The deals sync's `target:` block, indented as a sync's member: the mapping
 * the baseline client copies by hand. `objectType` is its YAML (a flow map).
 */
export function dealsTarget(sourceName = 'crm', objectType = '{ name: deal }'): string {
  return `    target:
      type: row
      source: { name: ${sourceName} }
      objectType: ${objectType}
      map:
        id: opportunity_id
        name: "account ? account & ' – ' & product : product"
        public: true
        fields: { stage: deal_stage, agent: sales_agent, product: product, value: close_value, closed: close_date }
`;
}

/** ferry.yaml for the deals sync against `baseUrl`. */
export function writeDealsConfig(dir: string, csvPath: string, baseUrl: string, settings: PushSettings): string {
  const path = join(dir, 'ferry.yaml');
  writeFileSync(
    path,
    `version: 1
service: { baseUrl: ${baseUrl}, apiKey: bench-key${settings.concurrency === undefined ? '' : `, concurrency: ${settings.concurrency}`}${settings.maxRequestsPerSecond === undefined ? '' : `, maxRequestsPerSecond: ${settings.maxRequestsPerSecond}`} }
state: { url: "sqlite:state/ferry.db" }
syncs:
  - name: deals
    source: { type: csv, path: ${JSON.stringify(csvPath)}, primaryKey: opportunity_id }
${dealsTarget('crm', '{ name: deal, fields: { stage: string, agent: string, product: string, value: int, closed: date } }')}`,
  );
  return path;
}
