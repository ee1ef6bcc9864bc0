/** The prediction-market explorer: list, event, calibration. */
import type { SeriesStats } from '../../pm/calibration.js';
import { VENUES } from '../../pm/venues.js';
import { change, compactUsd, money, pct, when } from '../format.js';
import { html, type Html } from '../html.js';
import { chart } from '../layout.js';
import { MARKET_SORTS, MARKETS_PAGE_SIZE, type MarketQuery, type eventPage, type marketsPage } from '../markets-data.js';

type ListPage = Awaited<ReturnType<typeof marketsPage>>;
type EventPage = NonNullable<Awaited<ReturnType<typeof eventPage>>>;

const href = (q: MarketQuery, page: number) =>
  `/markets?${[
    q.q ? `q=${encodeURIComponent(q.q)}` : '',
    q.source ? `source=${q.source}` : '',
    q.status ? `status=${q.status}` : '',
    q.sort !== 'best' ? `sort=${q.sort}` : '',
    page > 1 ? `page=${page}` : '',
  ]
    .filter(Boolean)
    .join('&')}`;

const leaderOf = (event: Record<string, unknown>) => event.representativeOutcome as { name: string; probability: number } | undefined;

export function marketsBody(list: ListPage, q: MarketQuery): Html {
  const lastPage = Math.max(1, Math.ceil(list.total / MARKETS_PAGE_SIZE));
  // a page past the end links back to the last one (its "previous" was another empty page)
  const previous = q.page > lastPage ? html`<a rel="prev" href="${href(q, lastPage)}">← Last page</a>` : q.page > 1 ? html`<a rel="prev" href="${href(q, q.page - 1)}">← Previous</a>` : '';
  return html`<h1>Prediction markets</h1>
<form class="filters" method="get" action="/markets" role="search">
<label>Search <input type="search" name="q" value="${q.q}" maxlength="200" placeholder="bitcoin, election…"></label>
<label>Venue <select name="source"><option value="">all venues</option>${VENUES.map((v) => html`<option value="${v.id}"${q.source === v.id ? html` selected` : ''}>${v.name}</option>`)}</select></label>
<label>Status <select name="status"><option value="">any</option>${(['open', 'closed'] as const).map((s) => html`<option${q.status === s ? html` selected` : ''}>${s}</option>`)}</select></label>
<label>Sort <select name="sort">${Object.entries(MARKET_SORTS).map(([k, v]) => html`<option value="${k}"${q.sort === k ? html` selected` : ''}>${v}</option>`)}</select></label>
<button type="submit">Apply</button>
</form>
<p class="muted">${list.total} markets · page ${q.page} of ${lastPage}</p>
${list.rows.length === 0 ? html`<p class="empty">No market matches.</p>` : html`<div class="scroll" tabindex="0"><table class="markets">
<thead><tr><th scope="col">Market</th><th scope="col" class="num">Leader</th><th scope="col" class="num hide-s">24 h</th><th scope="col" class="num hide-s">Volume 24 h</th><th scope="col" class="num hide-s">Venues</th></tr></thead>
<tbody>${list.rows.map(({ row, event, venues }) => {
    const lead = leaderOf(event);
    return html`<tr><td><a href="/markets/${row.source}/${row.slug}">${row.title}</a><div class="sub">${(event.source as { name: string }).name} · ${row.category} · ${row.status}</div></td><td class="num">${lead ? html`${pct(lead.probability, 0)}<div class="sub">${lead.name}</div>` : '—'}</td><td class="num hide-s">${change(row.priceChange24h)}</td><td class="num hide-s">${compactUsd(row.volume24h)}</td><td class="num hide-s">${venues}</td></tr>`;
  })}</tbody></table></div>`}
<nav class="pager" aria-label="Pages">${previous} ${list.hasMore ? html`<a rel="next" href="${href(q, q.page + 1)}">Next →</a>` : ''}</nav>
<p class="muted">JSON: <a href="/api/prediction-markets/events">/api/prediction-markets/events</a> · <a href="/markets/calibration">Calibration by venue</a></p>`;
}

export function eventBody(e: EventPage, coinName: (coinId: string) => string | null): Html {
  const r = e.row;
  const ref = e.reference;
  const venueName = (e.event.source as { name: string }).name;
  return html`<h1>${r.title}</h1>
<p class="lede">${venueName} · ${r.category} · <span class="badge">${r.status}</span>${r.endAt ? html` · ends ${when(r.endAt.toISOString())}` : ''}</p>
<section aria-labelledby="outcomes"><h2 id="outcomes">Outcomes</h2>
<div class="scroll" tabindex="0"><table><thead><tr><th scope="col">Outcome</th><th scope="col" class="num">Probability</th><th scope="col" class="num hide-s">Bid</th><th scope="col" class="num hide-s">Ask</th></tr></thead>
<tbody>${e.outcomes.map((o) => html`<tr><td>${o.name}</td><td class="num">${pct(o.probability)}</td><td class="num hide-s">${o.bid ?? '—'}</td><td class="num hide-s">${o.ask ?? '—'}</td></tr>`)}</tbody></table></div>
<dl class="facts"><div><dt>Consensus</dt><dd>${ref ? html`${pct(ref.probability)} ${ref.outcomeName ?? ''} <span class="muted">(${ref.venueCount} venues, spread ${ref.spreadPoints} pts)</span>` : html`<span class="muted">none (needs 2+ oriented open venues)</span>`}</dd></div>
<div><dt>Volume 24 h</dt><dd>${money(r.volume24h)}</dd></div><div><dt>Liquidity</dt><dd>${money(r.liquidity)}</dd></div><div><dt>24 h change</dt><dd>${change(r.priceChange24h)}</dd></div></dl>
</section>
<section aria-labelledby="history"><h2 id="history">Price history</h2>
<p class="muted">${e.leader?.name ?? 'Leading outcome'}, probability in %, ${e.history.basis === 'captures' ? 'from our captures (7 days)' : 'from the stored sparkline'}.</p>
${chart('price-chart', `Price history of ${r.title}`, { series: [e.leader?.name ?? 'probability'], points: e.history.points, unit: '%' })}
</section>
<section aria-labelledby="cross"><h2 id="cross">Across venues</h2>
${e.cross.length === 0 ? html`<p class="empty">No other venue lists this event.</p>` : html`<div class="scroll" tabindex="0"><table id="cross-venue"><thead><tr><th scope="col">Venue</th><th scope="col">Their question</th><th scope="col">Orientation</th><th scope="col" class="num">Probability (our orientation)</th></tr></thead>
<tbody>${e.cross.map(
    (m) => html`<tr><td>${m.sourceName as string}</td><td><a href="/markets/${m.source as string}/${m.eventSlug as string}">${m.eventTitle as string}</a> <span class="muted">${m.eventStatus as string}</span></td><td>${m.orientation as string}</td><td class="num">${pct(m.probability as number | null)}</td></tr>`,
  )}</tbody></table></div>`}
</section>
${(e.row.coinIds as string[]).length ? html`<p>Coins: ${(e.row.coinIds as string[]).map((id, i) => html`${i ? ', ' : ''}<a href="/coins/${id}">${coinName(id) ?? id}</a>`)}</p>` : ''}
<section aria-labelledby="whales"><h2 id="whales">Large trades</h2>
${e.whales.length === 0 ? html`<p class="empty">No large prints on this market.</p>` : html`<ul class="list">${e.whales.map(
    (w) => html`<li>${money(w.usdValue as number)} ${w.side as string} ${w.outcome as string} at ${w.price as number} <span class="muted">${when(w.tradedAt as string)}</span></li>`,
  )}</ul>`}
</section>
<section aria-labelledby="res"><h2 id="res">Resolution</h2>
<dl class="facts"><div><dt>State</dt><dd>${e.resolution.state}</dd></div><div><dt>Winner</dt><dd>${e.resolution.winner ?? '—'}</dd></div><div><dt>Resolved</dt><dd>${when(e.resolution.resolvedAt)}${e.resolution.resolvedAt && !e.resolution.verified ? ' (time not venue-verified)' : ''}</dd></div><div><dt>Source</dt><dd>${e.resolution.settlementSource ?? '—'}</dd></div></dl>
${e.resolution.rules ? html`<details><summary>Rules</summary><p>${e.resolution.rules}</p></details>` : ''}
</section>
<p class="muted">${e.event.attribution as string}. JSON: <a href="/api/prediction-markets/events/${r.source}/${r.slug}">event detail</a></p>`;
}

export function calibrationBody(series: { source: string; name: string; stats: SeriesStats }[], minSample: number): Html {
  const scored = series.filter((s) => s.stats.sampleSize >= minSample);
  const pending = series.filter((s) => s.stats.sampleSize < minSample);
  return html`<h1>Calibration by venue</h1>
<p class="lede">Venue probabilities 24 h before resolution against what happened: every outcome of a complete book is one (probability, won) pair in 10 equal bins. A calibrated venue sits on the diagonal. Expected calibration error (ECE) is the pair-weighted mean distance from it.</p>
${chart('calibration-chart', 'Reliability diagram: predicted probability against realized rate, per venue', {
    series: scored.map((s) => s.name),
    bins: scored.map((s) => s.stats.reliability.map((b) => [b.predictedMean, b.realizedRate])),
  }, { kind: 'reliability' })}
<div class="scroll" tabindex="0"><table><caption>Scored venues (at least ${minSample} resolved markets)</caption><thead><tr><th scope="col">Venue</th><th scope="col" class="num">Markets</th><th scope="col" class="num">ECE</th><th scope="col" class="num">Mean winner confidence</th></tr></thead>
<tbody>${scored.map((s) => html`<tr><td>${s.name}</td><td class="num">${s.stats.sampleSize}</td><td class="num">${s.stats.calibrationError ?? '—'}</td><td class="num">${s.stats.meanWinnerConfidence === null ? '—' : pct(s.stats.meanWinnerConfidence * 100)}</td></tr>`)}</tbody></table></div>
${pending.length ? html`<p class="muted">Pending (below ${minSample}): ${pending.map((s) => `${s.name} (${s.stats.sampleSize})`).join(', ')}.</p>` : ''}
<p class="muted">JSON with the final-price and own-capture series: <a href="/api/prediction-markets/calibration">/api/prediction-markets/calibration</a></p>`;
}
