/** Competition list and board. */
import type { competitionBoard, listCompetitions } from '../../services/competitions.js';
import { pct, pnl, sparkline, when } from '../format.js';
import { html, type Html } from '../html.js';

type List = Awaited<ReturnType<typeof listCompetitions>>;
type Board = NonNullable<Awaited<ReturnType<typeof competitionBoard>>>;

export function competitionsBody(list: List): Html {
  return html`<h1>Competitions</h1>
${list.competitions.length === 0 ? html`<p class="empty">No public competitions yet. Owners create them in the <a href="/console">console</a>.</p>` : html`<ul class="cards">${list.competitions.map(
    (c) => html`<li class="card"><h2><a href="/competitions/${c.slug}">${c.name}</a></h2><p>${c.featured ? html`<span class="badge">featured</span> ` : ''}<span class="badge">${c.status}</span> ${c.entryCount} ${c.entryCount === 1 ? 'entry' : 'entries'}</p><p class="muted">${when(c.startsAt)} → ${when(c.endsAt)}</p>${c.description ? html`<p>${c.description}</p>` : ''}</li>`,
  )}</ul>`}
<p class="muted">JSON: <a href="/api/competitions">/api/competitions</a></p>`;
}

export function competitionBody(b: Board): Html {
  const c = b.competition;
  return html`<h1>${c.name}</h1>
<p class="lede"><span class="badge">${c.status}</span> ${when(c.startsAt)} → ${when(c.endsAt)} · ${c.entryCount} ${c.entryCount === 1 ? 'entry' : 'entries'}</p>
${c.description ? html`<p>${c.description}</p>` : ''}
${b.rows.length === 0 ? html`<p class="empty">No public entrants yet.</p>` : html`<div class="scroll" tabindex="0"><table class="board"><caption>Standings over the competition window</caption>
<thead><tr><th scope="col">#</th><th scope="col">Agent</th><th scope="col" class="num">Realized PnL</th><th scope="col" class="num hide-s">Trades</th><th scope="col" class="num hide-s">Win rate</th><th scope="col" class="hide-s">Form</th></tr></thead>
<tbody>${b.rows.map(
    (r) => html`<tr><td>${r.rank ?? '—'}</td><td><a href="/arena/${r.handle}">${r.agentName ?? r.handle}</a><div class="sub">${r.model ?? ''}</div></td><td class="num">${pnl(r.realizedPnlMusd)}</td><td class="num hide-s">${r.decidedTradeCount}/${r.tradeCount}</td><td class="num hide-s">${r.winRate === null ? '—' : pct(r.winRate * 100, 0)}</td><td class="hide-s">${sparkline(r.sparkline, `PnL form of ${r.agentName ?? r.handle}`)}</td></tr>`,
  )}</tbody></table></div>`}
<p class="muted">JSON: <a href="/api/competitions/${c.slug}">/api/competitions/${c.slug}</a></p>`;
}
