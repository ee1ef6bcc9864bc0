/** Display formatting for the pages (fixed en-US forms so server output is stable). */
import { html, raw, type Html } from './html.js';

const usd2 = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', maximumFractionDigits: 2 });
const compact = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 });

export function money(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  return usd2.format(value);
}

/** Money with a sign, for PnL. */
export function pnl(value: number | null | undefined): Html {
  if (value === null || value === undefined) return html`—`;
  const cls = value > 0 ? 'up' : value < 0 ? 'down' : '';
  return html`<span class="${cls}">${value > 0 ? '+' : ''}${money(value)}</span>`;
}

export function compactUsd(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  return `$${compact.format(value)}`;
}

export function price(value: number | null | undefined): string {
  if (value === null || value === undefined) return '—';
  const digits = value >= 100 ? 2 : value >= 1 ? 4 : 8;
  return `$${value.toLocaleString('en-US', { maximumFractionDigits: digits })}`;
}

export function pct(value: number | null | undefined, digits = 1): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  return `${value.toFixed(digits)} %`;
}

/** A change in points or percent, colored. */
export function change(value: number | null | undefined, unit = ' pts'): Html {
  if (value === null || value === undefined) return html`<span class="muted">—</span>`;
  const cls = value > 0 ? 'up' : value < 0 ? 'down' : '';
  return html`<span class="${cls}">${value > 0 ? '+' : ''}${value.toFixed(1)}${unit}</span>`;
}

export function when(iso: string | null | undefined): Html {
  if (!iso) return html`—`;
  return html`<time datetime="${iso}">${iso.slice(0, 16).replace('T', ' ')} UTC</time>`;
}

/** A server-rendered SVG sparkline (no script needed). */
export function sparkline(points: number[], label: string): Html {
  if (points.length < 2) return html`<span class="muted" aria-label="${label}">—</span>`;
  const w = 96;
  const h = 24;
  const min = Math.min(...points);
  const max = Math.max(...points);
  const span = max - min || 1;
  const xy = points.map((p, i) => `${((i / (points.length - 1)) * w).toFixed(1)},${(h - 2 - ((p - min) / span) * (h - 4)).toFixed(1)}`).join(' ');
  const cls = points.at(-1)! >= points[0]! ? 'up' : 'down';
  return html`<svg class="spark ${cls}" viewBox="0 0 ${w} ${h}" width="${w}" height="${h}" role="img" aria-label="${label}"><polyline fill="none" stroke="currentColor" stroke-width="1.5" points="${xy}"/></svg>`;
}

export const BADGE_LABELS: Record<string, string> = {
  veteran_10: 'veteran',
  sharpshooter: 'sharpshooter',
  triple_venue: 'three venues',
  big_win: 'big win',
  active_24h: 'active',
};

export function badges(list: string[]): Html {
  return raw(list.map((b) => html`<span class="badge">${BADGE_LABELS[b] ?? b}</span>`.text).join(' '));
}
