/**
 * A minimal trading agent written with the typed client: resolve a coin → quote → order → portfolio → decisions.
 *
 *   PAPER_ARENA_KEY=sk_live_… npx tsx examples/agent-loop.ts [--coin bitcoin] [--rounds 3] [--quantity 0.001]
 *
 * PAPER_ARENA_URL defaults to http://127.0.0.1:3000. The key needs the `read` and `trade:spot` scopes.
 * Orders carry no idempotencyKey here: the client adds one per call (see clients/typescript/src/index.ts).
 */
import { parseArgs } from 'node:util';
import { createClient, PaperArenaError, unwrap } from '../clients/typescript/src/index.js';

const { values } = parseArgs({
  options: {
    coin: { type: 'string', default: 'bitcoin' },
    rounds: { type: 'string', default: '1' },
    quantity: { type: 'string', default: '0.001' },
  },
});
const fail = (line: string, code: number): never => {
  process.stderr.write(`${line}\n`);
  process.exit(code);
};
const apiKey = process.env.PAPER_ARENA_KEY || fail('set PAPER_ARENA_KEY to an API key with the read and trade:spot scopes', 2);
const rounds = Number(values.rounds);
const quantity = Number(values.quantity);
if (!Number.isInteger(rounds) || rounds < 1) fail(`--rounds must be a whole number of rounds, 1 or more (got ${values.rounds})`, 2);
if (!Number.isFinite(quantity) || quantity <= 0) fail(`--quantity must be a positive number of coins (got ${values.quantity})`, 2);
const baseUrl = process.env.PAPER_ARENA_URL ?? 'http://127.0.0.1:3000';
const client = createClient({ baseUrl, apiKey });
const log = (line: string) => process.stdout.write(`${line}\n`);
const runId = `example-${new Date().toISOString()}`;

// The API's answers to a mistake (a bad key, a budget spent) and an unreachable server end the run in one line.
function report(error: unknown): never {
  if (error instanceof PaperArenaError) fail(`${error.status} ${error.code}: ${error.message}${error.retryAfterSeconds ? ` (retry after ${error.retryAfterSeconds} s)` : ''}`, 1);
  const cause = (error as { cause?: { code?: string } })?.cause?.code;
  if (error instanceof TypeError && error.message === 'fetch failed') fail(`cannot reach ${baseUrl} (${cause ?? 'fetch failed'}): is the server running? (PAPER_ARENA_URL)`, 1);
  throw error;
}

async function run(): Promise<void> {
  const me = unwrap(await client.GET('/api/agent/me'));
  log(`agent: key ${me.keyId} (${me.agentName ?? 'unnamed'}), scopes ${me.scopes.join(', ')}`);

  // 1. Resolve: a name or ticker → the coin id every other call takes.
  const resolved = unwrap(await client.GET('/api/agent/resolve', { params: { query: { q: values.coin } } }));
  if (!resolved.match) fail(`no coin matches ${values.coin}: try a ticker (btc) or a name (bitcoin)`, 2);
  const coin = resolved.match!;
  log(`resolve: ${values.coin} → ${coin.symbol} (coinId ${coin.coinId})`);

  for (let round = 1; round <= rounds; round += 1) {
    const agentTrace = { runId, decisionId: `${runId}/round-${round}`, strategyLabel: 'example-alternating' };
    const side = round % 2 === 1 ? ('buy' as const) : ('sell' as const);

    // 2. Quote: what a market fill would cost now; refusals come back as values (eligible, blockReasons).
    const quote = unwrap(await client.POST('/api/agent/spot/quote', { body: { coinId: coin.coinId, side, quantity, agentTrace } }));
    log(`round ${round} quote: ${side} ${quantity} ${coin.symbol} at ${quote.executionPrice ?? 'n/a'} (eligible: ${quote.eligible}${quote.blockReasons.length ? `, ${quote.blockReasons.join(', ')}` : ''})`);
    if (!quote.eligible) continue;

    // 3. Order: a market order; the client adds the idempotency key.
    try {
      const order = unwrap(await client.POST('/api/agent/spot/order', { body: { coinId: coin.coinId, side, orderType: 'market', quantity, agentTrace } }));
      log(`round ${round} order: ${order.message} (orderId ${order.orderId}, fee ${order.summary.feeUsd} mUSD)`);
    } catch (error) {
      if (!(error instanceof PaperArenaError)) throw error;
      if (error.status === 429) {
        log(`round ${round} order: rate limited, retry after ${error.retryAfterSeconds} s`);
        continue;
      }
      log(`round ${round} order refused: ${error.code} ${error.message}`);
    }
  }

  // 4. Portfolio: equity and open orders of this key's paper book.
  const portfolio = unwrap(await client.GET('/api/agent/portfolio'));
  log(`portfolio: equity ${portfolio.equity.totalUsd} mUSD (cash ${portfolio.equity.cashTotal}, available ${portfolio.equity.available}, spot ${portfolio.equity.spotHoldingsUsd}), all-time PnL ${portfolio.pnl.allTimeUsd} mUSD`);

  // 5. Decisions: the public, resolved prediction-market decisions dataset of the Arena (keyless).
  const decisions = unwrap(await client.GET('/api/arena/decisions', { params: { query: { limit: 5 } } }));
  log(`decisions: ${decisions.count} resolved public decisions (${decisions.datasetVersion}); first page ${decisions.decisions.length}`);
  for (const d of decisions.decisions) log(`  ${d.agent ?? '?'} ${d.side ?? ''} "${d.question ?? ''}" → ${d.result ?? 'pending'} (${d.pnlMusd ?? 0} mUSD)`);
  log(`done: run ${runId}`);
}

await run().catch(report);
