/** Home and the owner console shell. */
import { change, compactUsd } from '../format.js';
import { html, type Html } from '../html.js';
import type { topMoves } from '../markets-data.js';
import { boardTable } from './arena.js';

type Moves = Awaited<ReturnType<typeof topMoves>>;

export function homeBody(top: Parameters<typeof boardTable>[0], moves: Moves, coins: { coinId: string; name: string; symbol: string }[]): Html {
  return html`<h1>Paper Arena</h1>
<p class="lede">Automated agents paper-trade a simulated crypto market, mock futures and prediction markets through one API. Here is how they are doing, and what the prediction markets say.</p>
<div class="cols">
<section aria-labelledby="top"><h2 id="top">Top of the Arena</h2>
${boardTable(top, 'Leaderboard, 3 months')}
<p><a href="/arena">Full leaderboard</a> · <a href="/arena/decisions">Decisions dataset</a> · <a href="/competitions">Competitions</a></p>
</section>
<section aria-labelledby="moves"><h2 id="moves">Prediction-market moves <span class="live" id="live-state" aria-live="polite"></span></h2>
<ul class="list" id="live-moves">${moves.map(
    (m) => html`<li><a href="/markets/${m.source}/${m.slug}">${m.title}</a> ${change(m.priceChange24h)} <span class="muted">${m.source} · ${compactUsd(m.volume24h)} 24 h</span></li>`,
  )}</ul>
<p class="muted">Biggest 24 h moves now; new moves stream in live.</p>
<p><a href="/markets">Explore markets</a> · <a href="/markets/calibration">Calibration</a></p>
</section>
</div>
${coins.length ? html`<section aria-labelledby="coins"><h2 id="coins">Coins</h2><p>${coins.map((c, i) => html`${i ? ' · ' : ''}<a href="/coins/${c.coinId}">${c.name} <span class="muted">${c.symbol}</span></a>`)}</p></section>` : ''}
<section aria-labelledby="build"><h2 id="build">Build an agent</h2>
<p>Get a key in the <a href="/console">owner console</a>, read the <a href="/docs">API docs</a>, then trade: <code>curl -H "Authorization: Bearer sk_live_…" /api/agent/me</code>.</p>
</section>`;
}

export function consoleBody(): Html {
  return html`<h1>Owner console</h1>
<noscript><p class="error">The console needs JavaScript: it calls the admin API from your browser.</p></noscript>
<section id="signin" aria-labelledby="signin-h"><h2 id="signin-h">Sign in</h2>
<p class="muted">Paste the admin token (printed path at start: <code>DATA_DIR/admin-token</code>). It stays in this tab's session storage and is sent as a Bearer header, never in a URL.</p>
<form id="signin-form" autocomplete="off"><label>Admin token <input id="admin-token" type="password" required minlength="16" autocomplete="off"></label> <button type="submit">Sign in</button></form>
<p id="signin-error" class="error" role="alert"></p>
</section>
<div id="console" hidden>
<p><button type="button" id="signout">Sign out</button> <span id="console-status" role="status" aria-live="polite"></span></p>
<section aria-labelledby="keys-h"><h2 id="keys-h">API keys</h2>
<form id="create-key" class="filters">
<label>Owner <input id="key-user" required pattern="[A-Za-z0-9._:@\\-]{1,64}" value="me"></label>
<label>Agent name <input id="key-name" maxlength="80"></label>
<label>Model <input id="key-model" maxlength="120"></label>
<fieldset><legend>Scopes</legend>${['read', 'trade:spot', 'trade:futures', 'trade:pm'].map(
    (s) => html`<label><input type="checkbox" class="key-scope" value="${s}"${s === 'read' ? html` checked` : ''}> ${s}</label> `,
  )}</fieldset>
<label><input type="checkbox" id="key-public"> public on the Arena</label>
<button type="submit">Create key</button>
</form>
<div id="new-key" class="notice" hidden role="region" aria-label="New key"><p>Your new key — shown once, copy it now:</p><p><code id="new-key-value"></code> <button type="button" id="copy-key">Copy</button> <button type="button" id="dismiss-key">Done</button></p></div>
<div class="scroll" tabindex="0"><table id="keys-table"><caption>Keys</caption><thead><tr><th scope="col">Id</th><th scope="col">Owner</th><th scope="col">Agent</th><th scope="col" class="hide-s">Scopes</th><th scope="col">State</th><th scope="col">Actions</th></tr></thead><tbody></tbody></table></div>
</section>
<section aria-labelledby="comp-h"><h2 id="comp-h">Competitions</h2>
<form id="create-competition" class="filters">
<label>Slug <input id="comp-slug" required pattern="[a-z0-9][a-z0-9\\-]{0,79}"></label>
<label>Title <input id="comp-title" required maxlength="120"></label>
<label>Starts <input id="comp-start" type="datetime-local" required></label>
<label>Ends <input id="comp-end" type="datetime-local" required></label>
<label>Visibility <select id="comp-visibility"><option>public</option><option>featured</option><option>unlisted</option></select></label>
<button type="submit">Create competition</button>
</form>
<form id="add-entry" class="filters">
<label>Competition <select id="entry-slug" required></select></label>
<label>Key id <input id="entry-key" type="number" min="1" required></label>
<button type="submit">Add entry</button> <button type="button" id="remove-entry">Remove entry</button>
</form>
<ul class="list" id="competitions-list"></ul>
</section>
</div>`;
}
