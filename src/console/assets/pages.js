// The console's pages. Each takes the route's parameters and the URL's query
// and returns the page's content (and, for a live page, a function to stop it).
import { announce, api, badge, confirmDialog, cursorText, duration, getSession, h, json, notice, num, table, when } from './ui.js';
import { navigate } from './app.js';

const COUNTS = ['read', 'created', 'updated', 'unchanged', 'failed', 'skipped', 'repaired', 'duplicates', 'deleted'];
const COUNT_LABEL = { failed: 'rejected' };

function countCells(counts, sync) {
  return COUNTS.map((c) => h('span', { 'data-sync': sync, 'data-count': c }, counts ? num(counts[c] ?? 0) : '–'));
}

function runButton(sync, label = 'Run') {
  return h('button', {
    type: 'button',
    class: 'primary',
    'aria-label': `${label} ${sync}`,
    onclick: async (event) => {
      event.currentTarget.disabled = true;
      announce(`Starting ${sync}…`);
      try {
        const started = await api('/api/runs', { syncs: [sync] });
        if (started.runId) navigate(`/syncs/${encodeURIComponent(sync)}/runs/${encodeURIComponent(started.runId)}`);
        else navigate(`/syncs/${encodeURIComponent(sync)}`);
      } catch (error) {
        event.target.closest('main').prepend(notice(`Could not run ${sync}: ${error.message}`, 'error'));
        event.target.disabled = false;
      }
    },
  }, label);
}

// ── Overview ────────────────────────────────────────────────────────────────

export async function overviewPage() {
  const { syncs } = await api('/api/overview');
  const totals = { syncs: syncs.filter((s) => s.kind === 'sync').length, exports: syncs.filter((s) => s.kind === 'export').length, failures: syncs.reduce((n, s) => n + s.openFailures, 0), live: syncs.reduce((n, s) => n + s.liveRecords, 0) };
  const columns = [
    { label: 'Sync' }, { label: 'Last run' },
    ...COUNTS.map((c) => ({ label: COUNT_LABEL[c] ?? c, num: true })),
    { label: 'Duration', num: true }, { label: 'Records/s', num: true }, { label: 'Cursor' }, { label: 'Schedule' },
    { label: 'Failures', num: true }, { label: 'Live', num: true }, { label: 'Run' },
  ];
  const rows = syncs.map((s) => [
    h('span', { class: 'name' }, h('a', { href: `/syncs/${encodeURIComponent(s.sync)}` }, s.sync), s.configured ? null : h('span', { class: 'muted' }, ' (not in config)')),
    s.lastRun
      ? h('span', {}, s.lastRun.runId ? h('a', { href: `/syncs/${encodeURIComponent(s.sync)}/runs/${encodeURIComponent(s.lastRun.runId)}` }, badge(s.lastRun.status)) : badge(s.lastRun.status), h('br'), when(s.lastRun.startedAt, { short: true }))
      : h('span', { class: 'muted' }, 'never run'),
    ...countCells(s.lastRun?.counts, s.sync),
    duration(s.lastRun?.durationMs),
    s.recordsPerSecond === null ? '–' : num(s.recordsPerSecond),
    h('code', {}, cursorText(s.cursor)),
    s.schedule ? h('span', {}, h('code', {}, s.schedule), h('br'), 'next ', when(s.nextRun, { short: true })) : h('span', { class: 'muted' }, 'none'),
    s.openFailures > 0 ? h('a', { href: `/failures?sync=${encodeURIComponent(s.sync)}`, 'data-sync': s.sync, 'data-count': 'openFailures' }, num(s.openFailures)) : h('span', { 'data-sync': s.sync, 'data-count': 'openFailures' }, '0'),
    h('span', { 'data-sync': s.sync, 'data-count': 'liveRecords' }, num(s.liveRecords)),
    s.kind === 'sync' && s.configured ? runButton(s.sync) : '',
  ]);
  return [
    h('h1', {}, 'Overview'),
    h('div', { class: 'cards' },
      card('Syncs', totals.syncs), card('Exports', totals.exports), card('Open failures', totals.failures), card('Live records', totals.live)),
    h('p', { class: 'muted' }, 'The last run of every sync and export, as ', h('code', {}, 'ferry status'), ' shows it. Open a sync for its chart of recent runs.'),
    table('Syncs and exports with their last run', columns, rows, 'compact'),
  ];
}

function card(label, value) {
  return h('div', { class: 'card' }, h('div', { class: 'label' }, label), h('div', { class: 'value' }, typeof value === 'number' ? num(value) : value));
}

// ── A sync: its runs and their chart ────────────────────────────────────────

export async function syncPage({ sync }) {
  const { sync: s, runs } = await api(`/api/syncs/${encodeURIComponent(sync)}?runs=50`);
  const last = s?.lastRun;
  const chart = h('div', { class: 'chart', role: 'img', 'aria-label': `Chart of the last ${runs.length} runs of ${sync}: records read, created, updated, rejected and duration over time` });
  const rows = runs.map((r) => [
    h('a', { href: `/syncs/${encodeURIComponent(sync)}/runs/${encodeURIComponent(r.runId)}`, title: r.runId }, h('code', {}, r.runId.slice(0, 8))),
    when(r.startedAt), badge(r.status), duration(r.durationMs), ...COUNTS.map((c) => num(r.counts[c] ?? 0)), r.error ? r.error.slice(0, 120) : '',
  ]);
  setTimeout(() => drawRunsChart(chart, runs), 0);
  return [
    h('h1', {}, `Sync ${sync}`),
    h('div', { class: 'actions' }, s?.kind === 'sync' && s.configured ? runButton(sync) : null,
      h('a', { href: `/failures?sync=${encodeURIComponent(sync)}` }, `Dead-letter (${num(s?.openFailures ?? 0)})`),
      h('a', { href: `/state#${encodeURIComponent(sync)}` }, 'State'),
      s?.kind === 'sync' ? h('a', { href: `/config/preview/${encodeURIComponent(sync)}` }, 'Preview') : null),
    h('dl', { class: 'kv' },
      h('dt', {}, 'Last run'), h('dd', {}, last ? badge(last.status) : 'never run'),
      h('dt', {}, 'Cursor'), h('dd', {}, h('code', {}, cursorText(s?.cursor))),
      h('dt', {}, 'Schedule'), h('dd', {}, s?.schedule ? [h('code', {}, s.schedule), ' — next run ', when(s.nextRun)] : 'none (runs when started)'),
      h('dt', {}, 'Live records'), h('dd', {}, num(s?.liveRecords ?? 0)),
      h('dt', {}, 'Declared at'), h('dd', {}, h('code', {}, s?.declaredAt ?? '–'))),
    h('h2', {}, 'Recent runs'),
    runs.length > 1 ? chart : h('p', { class: 'muted' }, 'The chart appears after two runs.'),
    table(`Runs of ${sync}, newest first`, [{ label: 'Run' }, { label: 'Started' }, { label: 'Status' }, { label: 'Duration', num: true }, ...COUNTS.map((c) => ({ label: COUNT_LABEL[c] ?? c, num: true })), { label: 'Error' }], rows),
  ];
}

function drawRunsChart(el, runs) {
  if (!window.uPlot || runs.length < 2 || !el.isConnected) return;
  const ordered = [...runs].reverse();
  const x = ordered.map((r) => Date.parse(r.startedAt) / 1000);
  const pick = (c) => ordered.map((r) => r.counts[c] ?? 0);
  const width = Math.max(480, Math.min(el.clientWidth - 16, 1300));
  new window.uPlot({
    width, height: 260,
    series: [
      {},
      { label: 'read', stroke: '#0a58ca', width: 2 },
      { label: 'created', stroke: '#1a7f37', width: 2 },
      { label: 'updated', stroke: '#8250df', width: 2 },
      { label: 'rejected', stroke: '#cf222e', width: 2 },
      { label: 'duration (s)', stroke: '#9a6700', dash: [6, 4], scale: 's', width: 2 },
    ],
    axes: [{}, { label: 'records' }, { side: 1, scale: 's', label: 'seconds', grid: { show: false } }],
    scales: { x: { time: true } },
  }, [x, pick('read'), pick('created'), pick('updated'), pick('failed'), ordered.map((r) => (r.durationMs ?? 0) / 1000)], el);
}

// ── A run, live while it runs ───────────────────────────────────────────────

export async function runPage({ sync, runId }) {
  const { run, errors } = await api(`/api/syncs/${encodeURIComponent(sync)}/runs/${encodeURIComponent(runId)}`);
  const statusEl = h('span', { id: 'run-status' }, badge(run.status));
  const cards = h('div', { class: 'cards', id: 'run-counts', 'aria-live': run.status === 'running' ? 'polite' : undefined });
  const timeline = h('ol', { class: 'timeline', 'aria-label': 'Timeline' }, h('li', {}, 'started ', when(run.startedAt)));
  const finished = h('dd', {}, when(run.finishedAt));
  const took = h('dd', {}, duration(run.durationMs));
  const errorBox = h('div', {});
  const renderCounts = (counts) => {
    cards.replaceChildren(...COUNTS.map((c) => h('div', { class: 'card' }, h('div', { class: 'label' }, COUNT_LABEL[c] ?? c), h('div', { class: 'value', 'data-count': c }, num(counts[c] ?? 0)))));
  };
  const renderEnd = (r) => {
    statusEl.replaceChildren(badge(r.status));
    finished.replaceChildren(when(r.finishedAt));
    took.replaceChildren(duration(r.durationMs));
    if (r.status !== 'running') timeline.append(h('li', {}, `${r.status} `, when(r.finishedAt)));
    if (r.error) errorBox.replaceChildren(notice(r.error, 'error'));
  };
  renderCounts(run.counts);
  if (run.error) errorBox.append(notice(run.error, 'error'));
  if (run.status !== 'running' && run.finishedAt) timeline.append(h('li', {}, `${run.status} `, when(run.finishedAt)));
  let source;
  if (run.status === 'running') {
    source = new EventSource(`/api/syncs/${encodeURIComponent(sync)}/runs/${encodeURIComponent(runId)}/events`);
    let lastRead = -1;
    source.addEventListener('progress', (e) => {
      const r = JSON.parse(e.data);
      renderCounts(r.counts);
      if (r.counts.read !== lastRead && r.status === 'running') {
        lastRead = r.counts.read;
        timeline.append(h('li', { class: 'progress-step' }, `${num(r.counts.read)} read, ${num(r.counts.created + r.counts.updated)} pushed at ${new Date().toISOString().slice(11, 19)}`));
      }
      if (r.status !== 'running') {
        renderEnd(r);
        announce(`Run ${r.status}`);
      }
    });
    source.addEventListener('end', () => source.close());
  }
  const content = [
    h('h1', {}, `Run of ${sync}`),
    h('dl', { class: 'kv' },
      h('dt', {}, 'Run'), h('dd', {}, h('code', {}, run.runId)),
      h('dt', {}, 'Status'), h('dd', {}, statusEl),
      h('dt', {}, 'Started'), h('dd', {}, when(run.startedAt)),
      h('dt', {}, 'Finished'), finished,
      h('dt', {}, 'Duration'), took,
      h('dt', {}, 'Cursor after'), h('dd', {}, h('code', {}, cursorText(run.cursor)))),
    errorBox,
    h('h2', {}, 'Counts'), cards,
    h('h2', {}, 'Timeline'), timeline,
    h('h2', {}, `Errors of this run (${errors.length})`),
    table('Dead-lettered records of this run', [{ label: 'ID' }, { label: 'Code' }, { label: 'Remote id' }, { label: 'Origin' }, { label: 'Reason' }],
      errors.map((f) => [h('a', { href: `/failures/${f.id}` }, String(f.id)), f.status ?? f.kind, f.remoteId ?? '–', f.origin ?? '–', f.reason.slice(0, 200)])),
    h('p', {}, h('a', { href: `/syncs/${encodeURIComponent(sync)}` }, `All runs of ${sync}`)),
  ];
  return { content, stop: () => source?.close() };
}

// ── Dead-letter ─────────────────────────────────────────────────────────────

export async function failuresPage(_params, query) {
  const [{ syncs }, page] = await Promise.all([api('/api/overview'), api(`/api/failures?${query.toString()}`)]);
  const selected = new Set();
  const filters = h('form', { class: 'filters', role: 'search', 'aria-label': 'Filter the dead-letter', onsubmit: (e) => {
    e.preventDefault();
    const form = new FormData(e.target);
    const next = new URLSearchParams();
    for (const [k, v] of form) if (v) next.set(k, String(v));
    navigate(`/failures${next.size ? `?${next}` : ''}`);
  } },
    h('label', { for: 'f-sync' }, 'Sync', h('select', { id: 'f-sync', name: 'sync' }, h('option', { value: '' }, 'all syncs'),
      syncs.filter((s) => s.kind === 'sync').map((s) => h('option', { value: s.sync, selected: query.get('sync') === s.sync ? 'selected' : undefined }, `${s.sync} (${s.openFailures})`)))),
    h('label', { for: 'f-code' }, 'Error code', h('input', { id: 'f-code', name: 'code', value: query.get('code') ?? '', placeholder: 'validation_error, 422, invalid' })),
    h('label', { for: 'f-remote' }, 'Remote id contains', h('input', { id: 'f-remote', name: 'remoteId', type: 'search', value: query.get('remoteId') ?? '' })),
    h('button', { type: 'submit' }, 'Filter'));
  const result = h('div', { id: 'action-result' });
  const act = async (what, body, label) => {
    try {
      const answer = await api(`/api/failures/${what}`, body);
      const text = what === 'purge' ? `Purged ${answer.purged} ${answer.purged === 1 ? 'entry' : 'entries'}.` : retryText(answer);
      announce(text);
      navigate(location.pathname + location.search, { replace: true, notice: text });
    } catch (error) {
      result.replaceChildren(notice(`${label} failed: ${error.message}`, 'error'));
    }
  };
  const scope = query.get('sync') ? { sync: query.get('sync') } : { all: true };
  const scopeText = query.get('sync') ? `of sync ${query.get('sync')}` : 'of every sync';
  const actions = h('div', { class: 'actions' },
    h('button', { type: 'button', class: 'primary', onclick: () => (selected.size ? act('retry', { ids: [...selected] }, 'Retry') : announce('Select entries first')) }, 'Retry selected'),
    h('button', { type: 'button', onclick: () => act('retry', scope, 'Retry') }, `Retry all ${scopeText}`),
    h('button', { type: 'button', class: 'danger', onclick: async () => {
      if (!selected.size) return announce('Select entries first');
      if (await confirmDialog({ title: 'Purge the selected entries?', text: `${selected.size} dead-lettered record(s) will be deleted and not retried again.`, confirmLabel: 'Purge' })) act('purge', { ids: [...selected] }, 'Purge');
    } }, 'Purge selected'),
    h('button', { type: 'button', class: 'danger', onclick: async () => {
      if (await confirmDialog({ title: `Purge the dead-letter ${scopeText}?`, text: `All ${page.total} entries ${scopeText} will be deleted (ferry failures purge). They are not retried again.`, confirmLabel: 'Purge' })) act('purge', scope, 'Purge');
    } }, `Purge all ${scopeText}`));
  const rows = page.failures.map((f) => [
    h('input', { type: 'checkbox', 'aria-label': `Select failure ${f.id}`, onchange: (e) => (e.target.checked ? selected.add(f.id) : selected.delete(f.id)) }),
    h('a', { href: `/failures/${f.id}` }, String(f.id)), f.sync, when(f.createdAt), h('code', {}, f.code), f.attempts > 1 ? `${f.kind} ×${f.attempts}` : f.kind,
    f.remoteId ?? '–', f.origin ?? '–', f.reason.length > 160 ? `${f.reason.slice(0, 160)}…` : f.reason,
  ]);
  const older = page.nextBeforeId ? (() => {
    const next = new URLSearchParams(query);
    next.set('beforeId', String(page.nextBeforeId));
    return h('a', { href: `/failures?${next}` }, 'Older entries');
  })() : null;
  return [
    h('h1', {}, 'Dead-letter'),
    h('p', { class: 'muted' }, `${num(page.total)} open ${page.total === 1 ? 'entry' : 'entries'} ${scopeText}. Retry maps each record again with the current mapping and pushes it, as ferry failures retry does.`),
    filters, actions, result,
    table('Dead-lettered records', [{ label: 'Select' }, { label: 'ID' }, { label: 'Sync' }, { label: 'When' }, { label: 'Code' }, { label: 'Kind' }, { label: 'Remote id' }, { label: 'Origin' }, { label: 'Reason' }], rows),
    h('div', { class: 'pager' }, query.get('beforeId') ? h('a', { href: '/failures', onclick: (e) => { e.preventDefault(); history.back(); } }, 'Newer entries') : null, older),
  ];
}

function retryText(answer) {
  if (!answer.syncs?.length) return answer.message ?? 'Nothing to retry.';
  return answer.syncs.map((s) => `${s.sync}: ${s.counts.created + s.counts.updated} landed, ${s.counts.failed} rejected again (${s.status})`).join('; ');
}

export async function failurePage({ id }) {
  const f = await api(`/api/failures/${encodeURIComponent(id)}`);
  const result = h('div', {});
  return [
    h('h1', {}, `Dead-letter entry ${f.id}`),
    h('dl', { class: 'kv' },
      h('dt', {}, 'Sync'), h('dd', {}, h('a', { href: `/failures?sync=${encodeURIComponent(f.sync)}` }, f.sync)),
      h('dt', {}, 'Remote id'), h('dd', {}, f.remoteId ?? '–'),
      h('dt', {}, 'Origin'), h('dd', {}, f.origin ?? '–'),
      h('dt', {}, 'Code'), h('dd', {}, h('code', {}, f.code), f.status ? ` (HTTP ${f.status})` : ''),
      h('dt', {}, 'Reason'), h('dd', {}, f.reason),
      h('dt', {}, 'When'), h('dd', {}, when(f.createdAt), f.attempts > 1 ? ` — failed ${f.attempts} times` : ''),
      h('dt', {}, 'Run'), h('dd', {}, f.runId ? h('a', { href: `/syncs/${encodeURIComponent(f.sync)}/runs/${encodeURIComponent(f.runId)}` }, f.runId) : '–')),
    h('div', { class: 'actions' },
      h('button', { type: 'button', class: 'primary', onclick: async () => {
        try {
          const answer = await api('/api/failures/retry', { ids: [f.id] });
          const text = retryText(answer);
          announce(text);
          navigate(`/failures?sync=${encodeURIComponent(f.sync)}`, { notice: text });
        } catch (error) {
          result.replaceChildren(notice(`Retry failed: ${error.message}`, 'error'));
        }
      } }, 'Retry'),
      h('button', { type: 'button', class: 'danger', onclick: async () => {
        if (!(await confirmDialog({ title: `Purge entry ${f.id}?`, text: 'The record is deleted from the dead-letter and not retried again.', confirmLabel: 'Purge' }))) return;
        await api('/api/failures/purge', { ids: [f.id] });
        navigate(`/failures?sync=${encodeURIComponent(f.sync)}`, { notice: `Purged entry ${f.id}.` });
      } }, 'Purge')),
    result,
    h('div', { class: 'side-by-side' },
      h('section', { 'aria-labelledby': 'h-src' }, h('h3', { id: 'h-src' }, 'Source record'), json(f.sourceRecord)),
      h('section', { 'aria-labelledby': 'h-body' }, h('h3', { id: 'h-body' }, 'Request body'), json(f.body)),
      h('section', { 'aria-labelledby': 'h-answer' }, h('h3', { id: 'h-answer' }, "Service's answer"), json(f.errorBody))),
  ];
}

// ── State ───────────────────────────────────────────────────────────────────

export async function statePage() {
  const { stateUrl, syncs } = await api('/api/state');
  const result = h('div', {});
  const lockText = (lock) => lock.stale ? [badge('stale'), ` ${lock.stale}; the next run takes it over`] : lock.held ? [badge('held'), lock.runId ? ` by run ${lock.runId}` : ' by another process'] : badge('free');
  const rows = syncs.map((s) => [
    h('span', { id: s.sync }, h('a', { href: `/syncs/${encodeURIComponent(s.sync)}` }, s.sync), s.configured ? '' : h('span', { class: 'muted' }, ' (not in config)')),
    h('code', {}, cursorText(s.cursor)),
    h('span', { 'data-sync': s.sync, 'data-count': 'liveRecords' }, num(s.liveRecords)),
    h('span', { 'data-sync': s.sync, 'data-count': 'openFailures' }, num(s.openFailures)),
    h('span', {}, lockText(s.lock)),
    s.lastRun ? [badge(s.lastRun.status), ' ', when(s.lastRun.startedAt)] : 'never',
    h('span', { class: 'actions' },
      h('label', { class: 'inline' }, h('input', { type: 'checkbox', id: `cursor-only-${s.sync}` }), 'cursor only'),
      h('button', { type: 'button', class: 'danger', 'aria-label': `Reset ${s.sync}`, onclick: async () => {
        const cursorOnly = document.getElementById(`cursor-only-${s.sync}`).checked;
        const text = cursorOnly
          ? `Forget the cursor of ${s.sync}: its next run re-reads the whole source (it pushes only what changed).`
          : `Forget the cursor, the ledger of ${num(s.liveRecords)} records and ${num(s.openFailures)} failures of ${s.sync}: its next run re-reads and re-pushes everything.`;
        if (!(await confirmDialog({ title: `Reset ${s.sync}?`, text, confirmLabel: 'Reset', requireText: s.sync }))) return announce('Nothing reset.');
        try {
          await api('/api/state/reset', { sync: s.sync, confirm: s.sync, cursorOnly });
          navigate('/state', { replace: true, notice: cursorOnly ? `Reset the cursor of ${s.sync}.` : `Reset ${s.sync}: cursor, ledger and failures.` });
        } catch (error) {
          result.replaceChildren(notice(`Reset failed: ${error.message}`, 'error'));
        }
      } }, 'Reset')),
  ]);
  return [
    h('h1', {}, 'State'),
    h('p', { class: 'muted' }, 'State store: ', h('code', {}, stateUrl), '. The same as ferry state show; Reset is ferry state reset.'),
    result,
    table('Incremental state per sync', [{ label: 'Sync' }, { label: 'Cursor' }, { label: 'Ledger (live)', num: true }, { label: 'Open failures', num: true }, { label: 'Lock' }, { label: 'Last run' }, { label: 'Reset' }], rows),
  ];
}

// ── Data: the service's read side ───────────────────────────────────────────

const LABEL_KEYS = ['title', 'name', 'subject', 'filename', 'displayName', 'text'];

export async function dataIndexPage() {
  const { resources } = await api('/api/data');
  return [
    h('h1', {}, 'Data'),
    h('p', { class: 'muted' }, "What the service holds, through its read side (with the embedded emulator: what your syncs landed)."),
    h('ul', {}, resources.map((r) => h('li', {}, h('a', { href: `/data/${r.name}` }, r.name), r.filters.length ? h('span', { class: 'muted' }, ` — filters: ${r.filters.join(', ')}`) : ''))),
  ];
}

export async function dataListPage({ resource }, query) {
  const [{ resources }, page] = await Promise.all([api('/api/data'), api(`/api/data/${resource}?${query}`)]);
  const described = resources.find((r) => r.name === resource);
  const items = page[page.itemsKey] ?? [];
  const form = h('form', { class: 'filters', 'aria-label': `Filter ${resource}`, onsubmit: (e) => {
    e.preventDefault();
    const next = new URLSearchParams();
    for (const [k, v] of new FormData(e.target)) if (v) next.set(k, String(v));
    navigate(`/data/${resource}${next.size ? `?${next}` : ''}`);
  } },
    (described?.filters ?? []).map((f) => h('label', { for: `q-${f}` }, f, h('input', { id: `q-${f}`, name: f, value: query.get(f) ?? '' }))),
    h('button', { type: 'submit' }, 'Filter'));
  const keys = columnsOf(items, page.idKey);
  const rows = items.map((item) => keys.map((k, i) => {
    const text = display(item[k]);
    return i === 0 && item[page.idKey] ? h('a', { href: `/data/${resource}/${encodeURIComponent(item[page.idKey])}` }, text) : text;
  }));
  let next = null;
  const more = page.pagination ?? page;
  if (more.hasMore && more.nextCursor) {
    const q = new URLSearchParams(query);
    q.set('cursor', more.nextCursor);
    next = h('a', { href: `/data/${resource}?${q}` }, 'Next page');
  }
  return [
    h('h1', {}, `Data: ${resource}`),
    h('p', {}, h('a', { href: '/data' }, 'All resources')),
    form,
    table(`${resource} from the service`, keys.map((k) => ({ label: k })), rows),
    h('div', { class: 'pager' }, query.get('cursor') ? h('a', { href: `/data/${resource}`, onclick: (e) => { e.preventDefault(); history.back(); } }, 'Previous page') : null, next),
  ];
}

function columnsOf(items, idKey) {
  const first = items[0];
  if (!first) return [idKey];
  const keys = [idKey, ...LABEL_KEYS.filter((k) => k in first), ...['remoteId', 'objectTypeName', 'type', 'startTime', 'fields', 'createdAt'].filter((k) => k in first)];
  return [...new Set(keys)].slice(0, 8);
}

function display(value) {
  if (value === undefined || value === null) return '–';
  // A row's fields: { name: { value, fieldType } } → name=value, …
  if (typeof value === 'object' && !Array.isArray(value) && Object.values(value).every((v) => v && typeof v === 'object' && 'value' in v)) {
    const text = Object.entries(value).map(([k, v]) => `${k}=${v.value}`).join(', ');
    return text.length > 120 ? `${text.slice(0, 120)}…` : text;
  }
  if (typeof value === 'object') return JSON.stringify(value).slice(0, 120);
  return String(value).length > 120 ? `${String(value).slice(0, 120)}…` : String(value);
}

export async function dataItemPage({ resource, id }) {
  const item = await api(`/api/data/${resource}/${encodeURIComponent(id)}`);
  const transcript = Array.isArray(item.transcript) ? item.transcript : null;
  return [
    h('h1', {}, `${resource}: ${item.title ?? item.name ?? item.id}`),
    h('p', {}, h('a', { href: `/data/${resource}`, onclick: (e) => { if (history.length > 1) { e.preventDefault(); history.back(); } } }, `Back to ${resource}`)),
    transcript ? [h('h2', {}, 'Transcript'), table('Transcript', [{ label: 'Speaker' }, { label: 'Text' }, { label: 'At' }], transcript.map((t) => [t.speakerName ?? t.speaker ?? '–', t.text ?? '', t.timestamp ?? t.startTime ?? '']))] : null,
    h('h2', {}, 'As the service returns it'),
    json(item),
  ];
}

// ── Config and preview ──────────────────────────────────────────────────────

export async function configPage() {
  const report = await api('/api/config');
  const items = report.items.map((i) => h('li', {}, badge(i.ok ? (i.kind === 'warning' ? 'warning' : 'ok') : 'error'), ` ${i.kind}${i.name ? ` ${i.name}` : ''}: ${i.message}`, i.text ? h('pre', {}, i.text) : null));
  return [
    h('h1', {}, 'Config'),
    h('p', {}, h('code', {}, report.file), ' — ', report.ok ? h('span', { class: 's-ok' }, 'all checks passed') : h('span', { class: 's-failed' }, `ferry check failed (exit ${report.exitCode})`)),
    h('h2', {}, 'Syncs'),
    table('Syncs of the project', [{ label: 'Sync' }, { label: 'Source' }, { label: 'Target' }, { label: 'Schedule' }, { label: 'Declared at' }, { label: 'Actions' }],
      report.syncs.map((s) => [h('a', { href: `/syncs/${encodeURIComponent(s.name)}` }, s.name), s.source, s.target, s.schedule ?? '–', h('code', {}, s.declaredAt),
        h('span', { class: 'actions' }, h('a', { href: `/config/preview/${encodeURIComponent(s.name)}`, 'aria-label': `Preview ${s.name}` }, 'Preview'), runButton(s.name))])),
    report.exports.length ? [h('h2', {}, 'Exports'), table('Exports of the project', [{ label: 'Export' }, { label: 'Resource' }, { label: 'Destination' }, { label: 'Schedule' }, { label: 'Declared at' }],
      report.exports.map((e) => [e.name, e.resource, e.destination, e.schedule ?? '–', h('code', {}, e.declaredAt)]))] : null,
    h('h2', {}, 'What ferry check says'),
    h('ul', { class: 'checks' }, items),
  ];
}

export async function previewPage({ sync }, query) {
  const n = query.get('n') ?? '5';
  const { samples, plan } = await api(`/api/config/preview/${encodeURIComponent(sync)}?n=${encodeURIComponent(n)}`);
  const c = plan.counts;
  return [
    h('h1', {}, `Preview of ${sync}`),
    h('p', { class: 'muted' }, 'Mapped, validated request bodies beside their source records, as ferry preview shows them. Nothing is pushed.'),
    h('p', {}, `Plan: ${c.read} read, ${c.created} create, ${c.updated} update, ${c.unchanged} unchanged, ${c.failed} invalid, ${c.skipped} skipped.`),
    plan.changes?.length ? h('p', {}, `Schema: ${plan.changes.map((ch) => `${ch.kind} ${ch.name}`).join(', ')}`) : null,
    samples.map((s, i) => h('section', { 'aria-labelledby': `p-${i}` },
      h('h2', { id: `p-${i}` }, `${s.origin} `, badge(s.action)),
      s.error ? notice(`invalid: ${s.error}`, 'error') : null,
      h('div', { class: 'side-by-side' },
        h('div', {}, h('h3', {}, 'Source record'), json(s.input)),
        h('div', {}, h('h3', {}, 'Request body'), json(s.body))))),
  ];
}

// ── Alerts ──────────────────────────────────────────────────────────────────

export async function alertsPage() {
  const { notify } = await getSession();
  return [
    h('h1', {}, 'Alerts'),
    h('p', { class: 'muted' }, 'notify: in ferry.yaml. Alerts are sent by ferry run, ferry worker and this console (docs/console.md#alerts).'),
    notify.webhooks.length === 0 ? notice('No webhooks configured: add notify.webhooks to ferry.yaml to get alerts.') : null,
    table('Webhooks', [{ label: 'Webhook (origin; the URL is a secret)' }, { label: 'Format' }], notify.webhooks.map((w) => [w.origin, w.format])),
    h('h2', {}, 'When'),
    h('ul', {},
      h('li', {}, `a run fails: ${notify.onFailure ? 'yes' : 'no'}`),
      h('li', {}, `its rejected share is above: ${notify.rejectedShareAbove === null ? 'off' : `${notify.rejectedShareAbove * 100}%`}`),
      h('li', {}, `a sync has not succeeded within: ${notify.notSucceededWithin ? duration(notify.notSucceededWithin) : 'twice its schedule interval (syncs with a schedule only)'}`)),
  ];
}
