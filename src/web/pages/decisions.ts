/** The public decisions dataset and one decision artifact with in-browser hash verification. */
import type { decisionArtifact, decisionSettlement, decisionsPage } from '../../services/arena-decisions.js';
import { pct, pnl, when } from '../format.js';
import { html, type Html } from '../html.js';

type Envelope = Awaited<ReturnType<typeof decisionsPage>>['envelope'];
export interface DatasetFilters {
  agent: string;
  limit: number;
  cursor: string;
  includeOpportunities: boolean;
}

const qs = (params: Record<string, string | number | boolean>) =>
  Object.entries(params)
    .filter(([, v]) => v !== '' && v !== false)
    .map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`)
    .join('&');

export function datasetBody(env: Envelope, f: DatasetFilters, agentError: string | null): Html {
  // a handle the API would refuse (400) is left out of the download links
  const api = (format: string) => `/api/arena/decisions?${qs({ format, agent: agentError ? '' : f.agent, limit: 250 })}`;
  const next = env.pagination.nextCursor;
  const opportunities = 'opportunities' in env ? (env.opportunities ?? []) : [];
  return html`<h1>Decisions dataset</h1>
<p class="lede">${env.description}</p>
<form class="filters" method="get" action="/arena/decisions">
<label>Agent handle <input name="agent" value="${f.agent}" placeholder="a12-my-agent" pattern="a[1-9][0-9]*-[A-Za-z0-9][A-Za-z0-9\\-]*" size="18"></label>
<label>Rows <select name="limit">${[25, 50, 100, 250].map((n) => html`<option${n === f.limit ? html` selected` : ''}>${n}</option>`)}</select></label>
<label><input type="checkbox" name="includeOpportunities" value="true"${f.includeOpportunities ? html` checked` : ''}> with opportunities</label>
<button type="submit">Apply</button>
</form>
${agentError ? html`<p class="error" role="alert">${agentError}</p>` : ''}
<p>Download (first 250 rows; follow <code>X-Next-Cursor</code> for more): <a href="${api('json')}" download>JSON</a> · <a href="${api('jsonl')}" download>JSON Lines</a> · schema <code>${env.schema}</code>, dataset ${env.datasetVersion}, ${env.count} resolved decisions.</p>
${env.decisions.length === 0 ? html`<p class="empty">No resolved decisions${f.agent ? ` for ${f.agent}` : ''} yet.</p>` : html`<div class="scroll" tabindex="0"><table>
<caption>Resolved decisions (oldest first)</caption>
<thead><tr><th scope="col">Question</th><th scope="col" class="hide-s">Agent</th><th scope="col" class="hide-s">Venue</th><th scope="col">Pick</th><th scope="col" class="num">Paid</th><th scope="col">Result</th><th scope="col" class="num">PnL</th></tr></thead>
<tbody>${env.decisions.map(
    (d) => html`<tr><td><a href="/arena/decisions/${d.decisionUuid}">${d.question ?? d.decisionUuid}</a></td><td class="hide-s">${d.agent}</td><td class="hide-s">${d.venue}</td><td>${d.side} ${d.chosenOutcome}</td><td class="num">${pct(d.predictedProbability, 0)}</td><td>${d.result}</td><td class="num">${pnl(d.pnlMusd)}</td></tr>`,
  )}</tbody></table></div>`}
${f.includeOpportunities ? html`<h2>Opportunities (not opened)</h2>${opportunities.length === 0 ? html`<p class="empty">None.</p>` : html`<div class="scroll" tabindex="0"><table><thead><tr><th scope="col">Event</th><th scope="col">Kind</th><th scope="col" class="hide-s">Agent</th><th scope="col">Recorded</th></tr></thead><tbody>${opportunities.map(
    (o) => html`<tr><td><a href="/arena/decisions/${o.decisionUuid}">${o.eventTitle ?? o.decisionUuid}</a></td><td>${o.opportunityKind}</td><td class="hide-s">${o.agent}</td><td>${when(o.createdAt)}</td></tr>`,
  )}</tbody></table></div>`}` : ''}
${next ? html`<p><a rel="next" href="/arena/decisions?${qs({ agent: f.agent, limit: f.limit, includeOpportunities: f.includeOpportunities, cursor: next })}">Next page →</a></p>` : ''}`;
}

type Artifact = ReturnType<typeof decisionArtifact>;

export function artifactBody(a: Artifact, settlement: ReturnType<typeof decisionSettlement>): Html {
  const fields = a.contentHashFields as string[];
  const value = (k: string) => {
    const v = (a as Record<string, unknown>)[k];
    return v === null || v === undefined ? '—' : typeof v === 'object' ? JSON.stringify(v) : String(v);
  };
  return html`<h1>Decision ${a.eventTitle ?? ''}</h1>
<p class="lede"><code>${a.decisionUuid}</code> · ${a.opportunityKind} · ${a.agent} · ${a.venue ?? ''} · recorded ${when(a.createdAt)}</p>
<section aria-labelledby="hash"><h2 id="hash">Content hash</h2>
<p>SHA-256 of the canonical JSON (keys sorted at every level, no whitespace) of the ${fields.length} fields below: <code class="hash" id="content-hash">${a.contentHash}</code></p>
<p>Press Verify to recompute it in your browser from the artifact below (edit it to see a mismatch).</p>
<p><button type="button" id="verify-button">Verify</button> <output id="verify-result" role="status" aria-live="polite" for="artifact-json"></output></p>
<details><summary>Artifact JSON (editable)</summary>
<label for="artifact-json" class="sr-only">Artifact JSON</label>
<textarea id="artifact-json" rows="16" spellcheck="false">${JSON.stringify(a, null, 2)}</textarea>
</details>
</section>
<section aria-labelledby="fields"><h2 id="fields">Hashed fields</h2>
<div class="scroll" tabindex="0"><table class="kv"><thead><tr><th scope="col">Field</th><th scope="col">Value</th></tr></thead><tbody>${fields.map((k) => html`<tr><th scope="row">${k}</th><td>${value(k)}</td></tr>`)}</tbody></table></div>
</section>
<section aria-labelledby="settle"><h2 id="settle">Settlement (outside the hash)</h2>
<dl class="facts"><div><dt>Label</dt><dd>${a.settlementLabel ?? 'pending'}</dd></div><div><dt>Settled</dt><dd>${when(a.settledAt)}</dd></div><div><dt>Stake</dt><dd>${a.stakeMusd ?? '—'}</dd></div><div><dt>PnL</dt><dd>${pnl(settlement.pnlMusd)}</dd></div><div><dt>Brier</dt><dd>${settlement.brier ?? '—'}</dd></div></dl>
<p class="muted">JSON: <a href="/api/arena/decisions/${a.decisionUuid}">/api/arena/decisions/${a.decisionUuid}</a></p>
</section>`;
}
