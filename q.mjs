import { DuckDBInstance } from '@duckdb/node-api';
const inst = await DuckDBInstance.create('state/exports/warehouse.duckdb', { access_mode: 'READ_ONLY' });
const c = await inst.connect();
for (const sql of process.argv.slice(2)) { try { console.log((await c.runAndReadAll(sql)).getRowObjectsJson()); } catch (e) { console.log('ERR', e.message); } }
