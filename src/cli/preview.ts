import type { RegisterCommand } from './main.js';
import { previewSync } from '../pipeline/preview.js';
import { FerryError } from '../sdk/errors.js';
import { configFileOf } from './context.js';
import { duplicatesNote, printJson } from './output.js';

export const register: RegisterCommand = (command) => {
  command
    .argument('<sync>', 'the sync to preview')
    .option('-n, --limit <n>', 'how many records to show (1 or more)', parseSampleCount, 5)
    .option('--json', 'print samples and plan as JSON')
    .action(async (syncName: string, flags: { limit: number; json?: boolean }) => {
      const { samples, plan } = await previewSync(configFileOf(command), syncName, flags.limit);
      if (flags.json) {
        printJson({ samples, plan });
        return;
      }
      for (const sample of samples) {
        console.log(`── ${sample.origin}  [${sample.action}]`);
        console.log('source record:');
        console.log(indent(JSON.stringify(sample.input, null, 2)));
        if (sample.body) {
          console.log('request body:');
          console.log(indent(JSON.stringify(sample.body, null, 2)));
        }
        if (sample.error) console.log(`invalid: ${sample.error}`);
      }
      const c = plan.counts;
      console.log(`\nplan for ${plan.sync}: ${c.read} read, ${c.created} create, ${c.updated} update, ${c.unchanged} unchanged, ${c.failed} invalid, ${c.skipped} skipped, ${plan.wouldDelete ?? 0} delete`);
      if ((c.duplicates ?? 0) > 0) console.log(duplicatesNote(c.duplicates ?? 0, plan.duplicates ?? []));
      if (plan.changes.length === 0) console.log('schema: no changes');
      for (const change of plan.changes) {
        const fields = 'fields' in change && Array.isArray(change.fields)
          ? ` (${(change.fields as unknown[]).map(describeField).join(', ')})`
          : '';
        console.log(`schema: ${change.kind} ${change.name}${fields}`);
      }
    });
};

function parseSampleCount(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < 1) {
    throw new FerryError('FERRY_USAGE', `--limit takes a whole number ≥ 1, not "${value}"`, { hint: 'e.g. ferry preview <sync> -n 20' });
  }
  return n;
}

function indent(text: string): string {
  return text.replace(/^/gm, '    ');
}

function describeField(field: unknown): string {
  if (typeof field === 'string') return field;
  const f = field as { name?: unknown; type?: unknown; fieldType?: unknown };
  const type = f.type ?? f.fieldType;
  return typeof f.name === 'string' && typeof type === 'string' ? `${f.name}: ${type}` : JSON.stringify(field);
}
