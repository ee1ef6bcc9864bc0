/** The page shell: head, navigation, footer, styles and the page's scripts. */
import { assetUrl, type AssetName } from './assets.js';
import { html, raw, safeJson, type Html } from './html.js';

export interface PageOptions {
  title: string;
  /** Path of the page, to mark the current navigation entry. */
  path: string;
  body: Html;
  /** Scripts in load order (deferred). */
  scripts?: AssetName[];
  /** Extra stylesheets (uPlot's on chart pages). */
  styles?: AssetName[];
}

const NAV: [string, string][] = [
  ['/arena', 'Arena'],
  ['/arena/decisions', 'Decisions'],
  ['/competitions', 'Competitions'],
  ['/markets', 'Markets'],
  ['/markets/calibration', 'Calibration'],
  ['/console', 'Console'],
];

function current(path: string, href: string): boolean {
  if (href === '/arena') return path === '/arena' || (path.startsWith('/arena/') && !path.startsWith('/arena/decisions'));
  if (href === '/markets') return path === '/markets' || (path.startsWith('/markets/') && path !== '/markets/calibration');
  return path === href || path.startsWith(`${href}/`);
}

export function page(o: PageOptions): string {
  const styles: AssetName[] = ['app.css', ...(o.styles ?? [])];
  return `<!doctype html>${html`<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<link rel="icon" href="data:,">
<title>${o.title} · Paper Arena</title>
${styles.map((s) => html`<link rel="stylesheet" href="${assetUrl(s)}">`)}
${(o.scripts ?? []).map((s) => html`<script defer src="${assetUrl(s)}"></script>`)}
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top">
<a class="brand" href="/">Paper Arena</a>
<nav aria-label="Main"><ul>${NAV.map(
    ([href, label]) => html`<li><a href="${href}"${current(o.path, href) ? html` aria-current="page"` : ''}>${label}</a></li>`,
  )}</ul></nav>
</header>
<main id="main">
${o.body}
</main>
<footer><p>Paper trading in a simulated market — no real money, not financial advice. Venue data belongs to the named venues. <a href="/docs">API docs</a> · <a href="/api/terms">Terms</a></p></footer>
</body>
</html>`.text}`;
}

/** A chart container: the data rides in the HTML; charts.js draws it with uPlot. */
export function chart(id: string, label: string, data: unknown, opts: { kind?: 'line' | 'candles' | 'reliability'; empty?: string } = {}): Html {
  return html`<figure class="chart" data-chart="${opts.kind ?? 'line'}" id="${id}" role="img" aria-label="${label}"><script type="application/json">${raw(safeJson(data))}</script><noscript><p class="muted">${opts.empty ?? 'The chart needs JavaScript; the figures are in the tables on this page.'}</p></noscript></figure>`;
}
