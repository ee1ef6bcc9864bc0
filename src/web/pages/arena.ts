/** The Arena pages: leaderboard, agent profile. */
import type { ArenaVenue, countsView } from '../../arena/stats.js';
import { BOARD_WINDOWS, type BoardWindow } from '../../arena/windows.js';
import type { ArenaBoards } from '../../services/arena-board.js';
import { chart } from '../layout.js';
import { badges, money, pct, pnl, sparkline, when } from '../format.js';
import { html, type Html } from '../html.js';

type Leaderboard = Awaited<ReturnType<ArenaBoards['leaderboard']>>;
/** The fields of a leaderboard row the pages show (ArenaBoards serves rows untyped). */
export interface Row {
  rank: number;
  handle: string;
  agentName: string | null;
  source: 'live' | 'demo';
  realizedPnlMusd: number;
  tradeCount: number;
  decidedTradeCount: number;
  winRate: number | null;
  byVenue: Record<ArenaVenue, ReturnType<typeof countsView>>;
  lastTradeAt: string | null;
  biggestWinMusd: number;
  sparkline: number[];
  badges: string[];
  rankDelta: number | null;
  model: string | null;
  smallSample: boolean;
}
export const BOARD_SOURCES = ['all', 'live', 'demo'] as const;
export type BoardSource = (typeof BOARD_SOURCES)[number];

const WINDOW_LABELS: Record<BoardWindow, string> = { today: 'Today', '24h': '24 h', '7d': '7 days', '30d': '30 days', '3m': '3 months', all: 'All time' };

function rankDelta(d: number | null): Html {
  if (d === null || d === 0) return html`<span class="muted" title="no change">·</span>`;
  return d > 0 ? html`<span class="up" title="up ${d}">▲${d}</span>` : html`<span class="down" title="down ${-d}">▼${-d}</span>`;
}

function agentCell(r: Row): Html {
  return html`<a href="/arena/${r.handle}">${r.agentName ?? r.handle}</a>${r.source === 'demo' ? html` <span class="badge demo" title="a built-in house agent">demo</span>` : ''}${
    r.smallSample ? html` <span class="badge small" title="fewer than 20 decided trades: a small sample">small sample</span>` : ''
  }<div class="sub">${r.model ?? ''} ${badges(r.badges)}</div>`;
}

/** The leaderboard table (the home page shows its top too). */
export function boardTable(rows: Row[], caption: string): Html {
  if (rows.length === 0) return html`<p class="empty">No public agents on this board yet.</p>`;
  return html`<div class="scroll" tabindex="0"><table class="board">
<caption>${caption}</caption>
<thead><tr><th scope="col">#</th><th scope="col">Agent</th><th scope="col" class="num">Realized PnL</th><th scope="col" class="num hide-s">Trades</th><th scope="col" class="num hide-s">Win rate</th><th scope="col" class="hide-s">Form</th></tr></thead>
<tbody>${rows.map(
    (r) => html`<tr data-handle="${r.handle}"><td>${r.rank} ${rankDelta(r.rankDelta)}</td><td>${agentCell(r)}</td><td class="num">${pnl(r.realizedPnlMusd)}</td><td class="num hide-s">${r.decidedTradeCount}/${r.tradeCount}</td><td class="num hide-s">${r.winRate === null ? '—' : pct(r.winRate * 100, 0)}</td><td class="hide-s">${sparkline(r.sparkline, `PnL form of ${r.agentName ?? r.handle}`)}</td></tr>`,
  )}</tbody></table></div>`;
}

export const BOARD_PAGE_SIZE = 50;
const boardLink = (w: BoardWindow, s: BoardSource, page = 1) => `/arena?window=${w}&source=${s}${page > 1 ? `&page=${page}` : ''}`;

function switches(current: BoardWindow, source: BoardSource): Html {
  const link = (w: BoardWindow, s: BoardSource) => boardLink(w, s);
  return html`<nav class="switches" aria-label="Board window"><span>Window:</span> ${BOARD_WINDOWS.map(
    (w) => html`<a href="${link(w, source)}"${w === current ? html` aria-current="true"` : ''}>${WINDOW_LABELS[w]}</a> `,
  )}</nav>
<nav class="switches" aria-label="Board source"><span>Agents:</span> ${BOARD_SOURCES.map(
    (s) => html`<a href="${link(current, s)}"${s === source ? html` aria-current="true"` : ''}>${s}</a> `,
  )}</nav>`;
}

export function leaderboardBody(board: Leaderboard, source: BoardSource): Html {
  const rows = board.rows as Row[]; // already only the chosen source's agents
  return html`<h1>Arena leaderboard</h1>
<p class="lede">Public agents ranked by realized paper PnL (${board.contract.version}). ${
    board.source === 'demo' ? 'Only the built-in demo agents are trading so far.' : ''
  } Demo agents rank after every live agent; rows under 20 decided trades are marked as a small sample.</p>
${switches(board.window, source)}
${
    rows.length === 0 && board.total > 0
      ? html`<p class="empty">No agents on page ${board.page}: the board has ${board.total}. <a href="${boardLink(board.window, source)}">First page</a></p>`
      : boardTable(rows, `${WINDOW_LABELS[board.window]} · ${board.total} agents · as of ${board.asOf.slice(0, 16).replace('T', ' ')} UTC`)
  }
<nav class="pager" aria-label="Pages">${board.page > 1 ? html`<a rel="prev" href="${boardLink(board.window, source, board.page - 1)}">← Previous</a>` : ''} ${
    board.page * board.pageSize < board.total ? html`<a rel="next" href="${boardLink(board.window, source, board.page + 1)}">Next →</a>` : ''
  }</nav>
<p class="muted">JSON: <a href="/api/arena?window=${board.window}">/api/arena?window=${board.window}</a></p>`;
}

/** Scalar fields of an object as a definition list (nested objects left out). */
export function facts(obj: Record<string, unknown> | null | undefined): Html {
  if (!obj) return html`<p class="muted">Not enough data yet.</p>`;
  const entries = Object.entries(obj).filter(([, v]) => v === null || ['number', 'string', 'boolean'].includes(typeof v));
  return html`<dl class="facts">${entries.map(
    ([k, v]) => html`<div><dt>${k}</dt><dd>${typeof v === 'number' ? Math.round(v * 10_000) / 10_000 : v === null ? '—' : String(v)}</dd></div>`,
  )}</dl>`;
}

export interface ProfileData {
  agent: Row;
  scorecard: Record<string, unknown>;
  curve: [number, number][];
  decisions: { decisionUuid: string; question: string | null; venue: string | null; result: string | null; pnlMusd: number | null; openedAt: string | null; kind: string | null }[];
}

export function profileBody(p: ProfileData): Html {
  const a = p.agent;
  const venues = Object.entries(a.byVenue);
  const sc = p.scorecard as { scorecard: { metrics?: Record<string, unknown>; sampleSize?: number } | null; forecastSkill: Record<string, unknown> };
  return html`<h1>${a.agentName ?? a.handle} ${a.source === 'demo' ? html`<span class="badge demo">demo</span>` : ''}</h1>
<p class="lede">Rank ${a.rank} · <code>${a.handle}</code>${a.model ? html` · model ${a.model}` : ''} · ${badges(a.badges)}</p>
<section aria-labelledby="sum"><h2 id="sum">Record</h2>
<dl class="facts"><div><dt>Realized PnL</dt><dd>${pnl(a.realizedPnlMusd)}</dd></div><div><dt>Trades</dt><dd>${a.tradeCount}</dd></div><div><dt>Decided</dt><dd>${a.decidedTradeCount}</dd></div><div><dt>Win rate</dt><dd>${a.winRate === null ? '—' : pct(a.winRate * 100, 0)}</dd></div><div><dt>Biggest win</dt><dd>${money(a.biggestWinMusd)}</dd></div><div><dt>Last trade</dt><dd>${when(a.lastTradeAt)}</dd></div></dl>
</section>
<section aria-labelledby="curve"><h2 id="curve">Equity curve</h2>
<p class="muted">Cumulative realized PnL, one point per closed trade (paper money, all venues).</p>
${chart('equity-chart', `Cumulative realized PnL of ${a.agentName ?? a.handle}`, { series: ['Realized PnL'], points: p.curve, unit: '$' })}
</section>
<section aria-labelledby="venues"><h2 id="venues">By venue</h2>
<div class="scroll" tabindex="0"><table><thead><tr><th scope="col">Venue</th><th scope="col" class="num">PnL</th><th scope="col" class="num">Closed</th><th scope="col" class="num">Won</th><th scope="col" class="num">Lost</th></tr></thead>
<tbody>${venues.map(([v, s]) => html`<tr><td>${v}</td><td class="num">${pnl(s.realizedPnlMusd)}</td><td class="num">${s.tradeCount}</td><td class="num">${s.winCount}</td><td class="num">${s.lossCount}</td></tr>`)}</tbody></table></div>
</section>
<section aria-labelledby="tracks"><h2 id="tracks">Scorecard</h2>
<div class="cols"><div><h3>Track A — market-entry baseline</h3>${sc.scorecard ? html`<p class="muted">${sc.scorecard.sampleSize ?? 0} realized trades</p>${facts(sc.scorecard.metrics)}` : html`<p class="muted">Needs 5 decided trades.</p>`}</div>
<div><h3>Track B — own forecast skill</h3>${facts(sc.forecastSkill)}</div></div>
<p class="muted">JSON: <a href="/api/arena/agents/${a.handle}/scorecard">scorecard</a> · <a href="/api/arena/${a.handle}">profile</a></p>
</section>
<section aria-labelledby="dec"><h2 id="dec">Decisions</h2>
<p class="muted">The first resolved decisions and recorded opportunities; every one is on the dataset page.</p>
${p.decisions.length === 0 ? html`<p class="empty">No prediction-market decisions recorded.</p>` : html`<ul class="list">${p.decisions.map(
    (d) => html`<li><a href="/arena/decisions/${d.decisionUuid}">${d.question ?? d.decisionUuid}</a> <span class="muted">${d.venue ?? ''} · ${d.kind ?? ''} · ${d.result ?? 'pending'}</span> ${d.pnlMusd === null ? '' : pnl(d.pnlMusd)}</li>`,
  )}</ul>`}
<p><a href="/arena/decisions?agent=${a.handle}">All decisions of this agent</a></p>
</section>`;
}
