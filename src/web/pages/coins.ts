/** A coin page: candles for the five ranges, market context and related prediction markets. */
import { CANDLE_RANGE_NAMES, type Candle, type CandleRange } from '../../domain/candles.js';
import type { FearGreed } from '../../domain/fear-greed.js';
import type { RelatedMarket } from '../../pm/api.js';
import type { Coin } from '../../marketdata/coins.js';
import type { CoinQuote } from '../../marketdata/reads.js';
import { change, compactUsd, pct, price } from '../format.js';
import { html, type Html } from '../html.js';
import { chart } from '../layout.js';

export interface CoinPage {
  coin: Coin;
  quote: CoinQuote | null;
  range: CandleRange;
  candles: Candle[];
  fearGreed: FearGreed | null;
  similar: Coin[];
  related: RelatedMarket[];
}

export function coinBody(p: CoinPage): Html {
  const q = p.quote;
  const last = p.candles.at(-1);
  return html`<h1>${p.coin.name} <span class="muted">${p.coin.symbol}</span></h1>
<p class="lede">${q ? price(q.priceUsd) : '—'} · 24 h ${change(q?.change24h ?? null, ' %')} · rank ${p.coin.rank ?? '—'} · simulated composite price</p>
<section aria-labelledby="candles"><h2 id="candles">Price</h2>
<nav class="switches" aria-label="Candle range"><span>Range:</span> ${CANDLE_RANGE_NAMES.map(
    (r) => html`<a href="/coins/${p.coin.coinId}?range=${r}"${r === p.range ? html` aria-current="true"` : ''}>${r}</a> `,
  )}</nav>
${chart('candle-chart', `${p.coin.name} price, ${p.range} range`, {
    kind: 'candles',
    series: ['Close', 'High', 'Low'],
    candles: p.candles.map((c) => [c.t, c.o, c.h, c.l, c.c]),
    unit: '$',
  }, { kind: 'candles' })}
<p class="muted">${p.candles.length} bars${last ? html`; last close ${price(last.c)}, high ${price(Math.max(...p.candles.map((c) => c.h)))}, low ${price(Math.min(...p.candles.map((c) => c.l)))}` : ''}.</p>
</section>
<section aria-labelledby="context"><h2 id="context">Market context</h2>
<dl class="facts"><div><dt>1 h</dt><dd>${change(q?.change1h ?? null, ' %')}</dd></div><div><dt>7 d</dt><dd>${change(q?.change7d ?? null, ' %')}</dd></div><div><dt>Market cap</dt><dd>${compactUsd(q?.marketCapUsd)}</dd></div><div><dt>Volume 24 h</dt><dd>${compactUsd(q?.volume24hUsd)}</dd></div>
<div><dt>Sentiment</dt><dd>${q?.sentiment.bullishPct === null || q === null ? '—' : `${pct(q.sentiment.bullishPct, 0)} bullish`}</dd></div><div><dt>Fear &amp; Greed</dt><dd>${p.fearGreed ? `${p.fearGreed.value} (${p.fearGreed.label})` : '—'}</dd></div></dl>
<p>Similar: ${p.similar.map((c, i) => html`${i ? ', ' : ''}<a href="/coins/${c.coinId}">${c.name}</a>`)}</p>
</section>
<section aria-labelledby="related"><h2 id="related">Related prediction markets</h2>
${p.related.length === 0 ? html`<p class="empty">No open market is about ${p.coin.name}.</p>` : html`<ul class="list">${p.related.map(
    (m) => html`<li><a href="/markets/${m.source}/${m.slug}">${m.title}</a> <span class="muted">${m.source} · ${m.outcome} ${pct(m.probability * 100, 0)}</span></li>`,
  )}</ul>`}
</section>`;
}
