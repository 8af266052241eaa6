// The console's router: every page has its own address (History API), links
// are ordinary <a href> (middle-click and bookmarks work), and the back button
// goes back. On each page change the main region is replaced, the title set
// and focus moved to the heading so screen readers announce the new page.
import * as pages from './pages.js';
import { getSession, h, notice } from './ui.js';

const ROUTES = [
  [/^\/$/, pages.overviewPage, () => 'Overview'],
  [/^\/syncs\/([^/]+)$/, pages.syncPage, ([sync]) => `Sync ${sync}`, ['sync']],
  [/^\/syncs\/([^/]+)\/runs\/([^/]+)$/, pages.runPage, ([sync]) => `Run of ${sync}`, ['sync', 'runId']],
  [/^\/failures$/, pages.failuresPage, () => 'Dead-letter'],
  [/^\/failures\/(\d+)$/, pages.failurePage, ([id]) => `Dead-letter entry ${id}`, ['id']],
  [/^\/state$/, pages.statePage, () => 'State'],
  [/^\/data$/, pages.dataIndexPage, () => 'Data'],
  [/^\/data\/([a-z-]+)$/, pages.dataListPage, ([r]) => `Data: ${r}`, ['resource']],
  [/^\/data\/([a-z-]+)\/([^/]+)$/, pages.dataItemPage, ([r]) => `Data: ${r}`, ['resource', 'id']],
  [/^\/config$/, pages.configPage, () => 'Config'],
  [/^\/config\/preview\/([^/]+)$/, pages.previewPage, ([s]) => `Preview of ${s}`, ['sync']],
  [/^\/alerts$/, pages.alertsPage, () => 'Alerts'],
];

let stopCurrent;
let pendingNotice;
let renderToken = 0;

/** Go to an address of the console (pushes history unless `replace`); `notice` shows on the next page. */
export function navigate(path, { replace = false, notice: text } = {}) {
  pendingNotice = text;
  if (replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  void render();
}

function markNav(path) {
  for (const a of document.querySelectorAll('header nav a')) {
    const href = a.getAttribute('href');
    const current = href === '/' ? path === '/' || path.startsWith('/syncs/') : path === href || path.startsWith(`${href}/`);
    if (current) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
}

async function render() {
  const token = ++renderToken;
  stopCurrent?.();
  stopCurrent = undefined;
  const main = document.getElementById('main');
  const path = location.pathname;
  const query = new URLSearchParams(location.search);
  markNav(path);
  const found = ROUTES.map(([pattern, page, title, names]) => ({ m: pattern.exec(path), page, title, names })).find((r) => r.m);
  let content;
  let title = 'Not found';
  try {
    if (!found) {
      content = [h('h1', {}, 'Not found'), h('p', {}, 'No page at this address. '), h('a', { href: '/' }, 'Overview')];
    } else {
      const values = found.m.slice(1).map(decodeURIComponent);
      const params = Object.fromEntries((found.names ?? []).map((n, i) => [n, values[i]]));
      title = found.title(values);
      const result = await found.page(params, query);
      if (result && !Array.isArray(result) && result.content) {
        content = result.content;
        stopCurrent = result.stop;
      } else content = result;
    }
  } catch (error) {
    content = [h('h1', {}, title), notice(error.message, 'error')];
  }
  if (token !== renderToken) {
    if (stopCurrent) stopCurrent();
    return;
  }
  document.title = `${title} · ferry console`;
  main.replaceChildren(...[pendingNotice ? notice(pendingNotice, 'ok') : null, content].flat(Infinity).filter(Boolean));
  pendingNotice = undefined;
  const heading = main.querySelector('h1');
  if (heading) {
    heading.setAttribute('tabindex', '-1');
    heading.focus({ preventScroll: true });
  }
  main.setAttribute('aria-busy', 'false');
}

// Same-origin links navigate without reloading; modified clicks (new tab) are left to the browser.
document.addEventListener('click', (event) => {
  const a = event.target.closest?.('a[href]');
  if (!a || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  const url = new URL(a.href, location.href);
  if (url.origin !== location.origin || a.target || url.pathname.startsWith('/api/') || (url.pathname === location.pathname && url.search === location.search && url.hash)) return;
  event.preventDefault();
  navigate(url.pathname + url.search + url.hash);
});
window.addEventListener('popstate', () => void render());

getSession().then((s) => {
  document.getElementById('project').textContent = `${s.project} · ${s.service} · ferry ${s.version}`;
}).catch(() => undefined);
void render();
