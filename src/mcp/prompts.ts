import { ErrorCode, McpError, type GetPromptResult, type Prompt } from '@modelcontextprotocol/sdk/types.js';

export const FIRST_SESSION_PROMPT: Prompt = {
  name: 'safe_first_session',
  title: 'A safe first paper-trading session',
  description: 'Walks an agent through resolve → quote → one small order → portfolio → recording the decision.',
  arguments: [
    { name: 'symbol', description: 'coin to look at (default BTC)', required: false },
    { name: 'budgetMusd', description: 'most mUSD to spend on the one order (default 100)', required: false },
  ],
};

/** The walkthrough; every step names the tool to call and what to check before the next. */
export function firstSessionPrompt(args: Record<string, string | undefined>): GetPromptResult {
  const symbol = args.symbol?.trim() || 'BTC';
  const budget = args.budgetMusd?.trim() || '100';
  // Both go into the text the model reads as instructions: a ticker and a plain positive amount only.
  if (!/^[A-Za-z0-9.-]{1,20}$/.test(symbol)) throw new McpError(ErrorCode.InvalidParams, 'symbol: a ticker of 1..20 letters, digits, "." or "-"');
  if (!/^\d{1,9}(\.\d{1,8})?$/.test(budget) || Number(budget) <= 0) throw new McpError(ErrorCode.InvalidParams, 'budgetMusd: a positive amount of mUSD, e.g. 100');
  const text = `You are trading on Paper Arena: simulated money (mUSD), a 50,000 mUSD paper book per API key. Nothing here is financial advice.
Run one careful session. Pick one runId for the whole session (e.g. "first-session-<date>") and a new decisionId per decision; pass runId, decisionId, strategyLabel and confidence (0..1) on every call — they land in your private ledger.

1. account_me — check which scopes your key has (spot orders need "trade:spot"). account_portfolio — note your mUSD balance.
2. market_resolve with q="${symbol}" — take match.coinId (a UCID). The market, spot and futures tools take coinId, never a ticker (market_news takes symbols or slugs).
3. market_context with that coinId — read price, freshness and sentiment. If freshness.status is "stale" or "unknown", stop here and explain why.
4. spot_quote {coinId, side: "buy", quantity} with a quantity worth at most ${budget} mUSD at the context price. Check eligible is true and blockReasons is empty; read executionPrice and the fee. Quotes change nothing.
5. spot_order {coinId, side: "buy", orderType: "market", quantity, idempotencyKey}. Make the idempotencyKey unique for this one intended order and reuse it only to retry the same order: a retry with the same key replays the first result instead of buying twice.
6. account_portfolio — confirm the holding and the mUSD spent; compare with the quote.
7. Record the decision: account_ledger with runId — your quote and order rows must show your decisionId. If you decided NOT to trade at any step, call pm_opportunity {kind: "abstained", decisionId, runId, reasonCode} instead, so the abstention is on record too.

Rules: tool errors carry an "error" code — "insufficient_scope" means your key lacks the scope (do not retry), "rate_limited" comes with retryAfterSeconds (wait that long), "invalid_request" names the argument to fix. Never place more than one order in this session.`;
  return { description: FIRST_SESSION_PROMPT.description, messages: [{ role: 'user', content: { type: 'text', text } }] };
}
