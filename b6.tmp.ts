import { emulatorRows } from './bench/export-read.bench.ts';
for (const r of await emulatorRows()) console.log(r.name, r.value, r.goal ?? '');
