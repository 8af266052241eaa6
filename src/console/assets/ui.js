// Small DOM and API helpers shared by the pages. No framework: the pages are
// tables, forms and a chart, built with h() and replaced whole on navigation.

/** h('a', { href: '/x' }, 'text', child…): an element with attributes, properties (on…) and children. */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') el.addEventListener(key.slice(2), value);
    else if (key === 'class') el.className = value;
    else if (key === 'checked' || key === 'value' || key === 'disabled') el[key] = value;
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

let session;

/** The console's session (project, csrf token), fetched once. */
export async function getSession() {
  session ??= await api('/api/session');
  return session;
}

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/** GET (or POST with a JSON body) an /api/ route; throws ApiError with the server's message. */
export async function api(path, body) {
  const init = { headers: { accept: 'application/json' } };
  if (body !== undefined) {
    const s = await getSession();
    init.method = 'POST';
    init.headers['content-type'] = 'application/json';
    init.headers[s.csrfHeader] = s.csrfToken;
    init.body = JSON.stringify(body);
  }
  const res = await fetch(path, init);
  const text = await res.text();
  let data;
  try {
    data = text ? JSON.parse(text) : {};
  } catch {
    throw new ApiError(res.status, `the console answered ${res.status} with something that is not JSON`);
  }
  if (!res.ok) throw new ApiError(res.status, data?.error?.message ?? `the console answered ${res.status}`);
  return data;
}

/** Say something to screen readers (the polite live region). */
export function announce(text) {
  const region = document.getElementById('status');
  region.textContent = '';
  setTimeout(() => (region.textContent = text), 30);
}

export function badge(status) {
  return h('span', { class: `badge s-${status}` }, status);
}

export function num(n) {
  return n === undefined || n === null ? '–' : Number(n).toLocaleString('en-US');
}

export function duration(ms) {
  if (ms === undefined || ms === null) return '–';
  if (ms < 1000) return `${ms} ms`;
  const s = ms / 1000;
  if (s < 120) return `${s.toFixed(1)} s`;
  const m = Math.floor(s / 60);
  return `${m} min ${Math.round(s - m * 60)} s`;
}

/** A moment: the full UTC time, and how long ago (or `short`: only how long ago, the full time as its title). */
export function when(iso, { short = false } = {}) {
  if (!iso) return '–';
  const d = new Date(iso);
  const ago = (Date.now() - d.getTime()) / 1000;
  const rel = ago < 0 ? `in ${span(-ago)}` : `${span(ago)} ago`;
  const full = `${d.toISOString().replace('T', ' ').slice(0, 19)} UTC`;
  return h('time', { datetime: iso, title: full }, short ? rel : `${full} (${rel})`);
}

function span(s) {
  if (s < 90) return `${Math.round(s)} s`;
  if (s < 5400) return `${Math.round(s / 60)} min`;
  if (s < 172800) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86400)} days`;
}

export function cursorText(cursor) {
  if (!cursor) return 'none';
  if (typeof cursor === 'object' && 'value' in cursor) return String(cursor.value);
  return JSON.stringify(cursor);
}

export function json(value) {
  return h('pre', { tabindex: '0' }, value === undefined ? '(none)' : JSON.stringify(value, null, 2));
}

/** A table: columns [{ label, num? }], rows of cells; `caption` names it for screen readers. */
export function table(caption, columns, rows, className) {
  return h('div', { class: 'table-wrap' },
    h('table', { class: className },
      h('caption', { class: 'visually-hidden' }, caption),
      h('thead', {}, h('tr', {}, columns.map((c) => h('th', { scope: 'col', class: c.num ? 'num' : undefined }, c.label)))),
      h('tbody', {}, rows.length === 0
        ? h('tr', {}, h('td', { colspan: String(columns.length), class: 'muted' }, 'Nothing here.'))
        : rows.map((cells) => h('tr', {}, cells.map((cell, i) => h('td', { class: columns[i]?.num ? 'num' : undefined }, cell)))))));
}

export function notice(text, kind = '') {
  return h('div', { class: `notice ${kind}`, role: kind === 'error' ? 'alert' : undefined }, text);
}

/** Ask before a destructive action: a modal dialog, resolved true only by its confirm button. */
export function confirmDialog({ title, text, confirmLabel, requireText }) {
  return new Promise((resolve) => {
    const input = requireText ? h('input', { id: 'confirm-text', autocomplete: 'off' }) : undefined;
    const ok = h('button', { class: 'danger primary', type: 'submit', disabled: requireText ? true : undefined }, confirmLabel);
    const cancel = h('button', { type: 'button', onclick: () => dialog.close('cancel') }, 'Cancel');
    input?.addEventListener('input', () => (ok.disabled = input.value !== requireText));
    const dialog = h('dialog', { 'aria-labelledby': 'confirm-title', 'aria-describedby': 'confirm-desc' },
      h('form', { method: 'dialog' },
        h('h2', { id: 'confirm-title' }, title),
        h('p', { id: 'confirm-desc' }, text),
        input ? h('label', { for: 'confirm-text' }, `Type ${requireText} to confirm`, input) : null,
        h('div', { class: 'actions' }, ok, cancel)));
    ok.addEventListener('click', (e) => {
      e.preventDefault();
      dialog.close('confirm');
    });
    dialog.addEventListener('close', () => {
      resolve(dialog.returnValue === 'confirm');
      dialog.remove();
    });
    document.body.append(dialog);
    dialog.showModal();
    (input ?? cancel).focus();
  });
}
