/**
 * The MCP tool table: one line per tool, naming the REST route it adapts. Input schemas,
 * descriptions, scopes and output schemas come from the route itself (see tool-schema.ts);
 * a line whose route is not registered is skipped, so a tool appears with its endpoint.
 */

/** A route a tool may call; the first choice whose condition holds is taken, the last is the fallback. */
export interface RouteChoice {
  route: string;
  /** Taken when this argument is present (or, with `equals`, has that value). */
  when?: { argument: string; equals?: string };
}

export interface ToolSpec {
  name: string;
  routes: RouteChoice[];
  /** An argument of the tool itself (not of the route) that picks the route. */
  selector?: { name: string; values: string[]; default: string; description: string };
  /** A write whose repetition has no further effect although its route takes no idempotencyKey. */
  naturallyIdempotent?: boolean;
  /** Extra words for the model, appended to the route's own summary. */
  note?: string;
  /** Route arguments the tool always sends and does not offer (a tool answers JSON, never a download format). */
  fixed?: Record<string, string>;
}

const one = (name: string, route: string, extra: Partial<ToolSpec> = {}): ToolSpec => ({ name, routes: [{ route }], ...extra });

export const TOOL_SPECS: readonly ToolSpec[] = [
  // market
  one('market_resolve', 'GET /api/agent/resolve', { note: 'Use it first: the market, spot and futures tools take the coinId (UCID), not a ticker (market_news takes symbols or slugs).' }),
  one('market_context', 'GET /api/agent/market/:coinId'),
  one('market_candles', 'GET /api/agent/market/:coinId/candles'),
  {
    name: 'market_movers',
    routes: [{ route: 'GET /api/coins/top-losers', when: { argument: 'direction', equals: 'losers' } }, { route: 'GET /api/coins/top-gainers' }],
    selector: { name: 'direction', values: ['gainers', 'losers'], default: 'gainers', description: 'largest 24 h gain (gainers) or loss (losers)' },
    note: 'With direction "losers": the largest 24 h losses instead.',
  },
  one('market_news', 'GET /api/agent/news'), // listed once the news endpoint exists
  // account
  one('account_me', 'GET /api/agent/me'),
  one('account_wallet', 'GET /api/agent/wallet'),
  one('account_portfolio', 'GET /api/agent/portfolio'),
  one('account_open_orders', 'GET /api/agent/orders/open'),
  one('account_trades', 'GET /api/agent/trades'),
  one('account_equity_curve', 'GET /api/agent/equity-curve'),
  one('account_performance', 'GET /api/agent/performance'),
  one('account_ledger', 'GET /api/agent/ledger'),
  // spot
  one('spot_quote', 'POST /api/agent/spot/quote'),
  one('spot_order', 'POST /api/agent/spot/order'),
  one('spot_cancel', 'POST /api/agent/spot/order/:id/cancel', { naturallyIdempotent: true }),
  // futures
  one('futures_quote', 'POST /api/agent/futures/quote'),
  one('futures_open', 'POST /api/agent/futures/open'),
  one('futures_close', 'POST /api/agent/futures/close'),
  one('futures_set_sl_tp', 'POST /api/agent/futures/sl-tp', { naturallyIdempotent: true }),
  one('futures_positions', 'GET /api/agent/positions/futures'),
  // prediction-market trading
  one('pm_discover', 'GET /api/agent/pm/discover'),
  one('pm_quote', 'POST /api/agent/pm/quote'),
  one('pm_open', 'POST /api/agent/pm/open'),
  one('pm_positions', 'GET /api/agent/positions/pm'),
  one('pm_opportunity', 'POST /api/agent/pm/opportunity', { note: 'Replays (same decisionId) return the first record.' }),
  // prediction-market research (keyless)
  one('pm_events', 'GET /api/prediction-markets/events'),
  one('pm_event', 'GET /api/prediction-markets/events/:source/:slug'),
  one('pm_price_history', 'GET /api/prediction-markets/event/:source/:slug/price-history'),
  {
    name: 'pm_canonical',
    routes: [
      { route: 'GET /api/prediction-markets/canonical/:key', when: { argument: 'key' } },
      { route: 'GET /api/prediction-markets/canonical' },
    ],
    note: 'With the key argument: that one canonical event; without it: the cursor-paged list.',
  },
  one('pm_consensus_methodology', 'GET /api/prediction-markets/consensus-methodology'),
  one('pm_calibration', 'GET /api/prediction-markets/calibration'),
  one('pm_resolved', 'GET /api/prediction-markets/resolved'),
  one('pm_whales', 'GET /api/prediction-markets/whales'),
  one('pm_overview', 'GET /api/prediction-markets/overview'),
  // arena (keyless)
  one('arena_leaderboard', 'GET /api/arena'),
  one('arena_agent', 'GET /api/arena/:handle'),
  one('arena_decisions', 'GET /api/arena/decisions', { fixed: { format: 'json' } }),
  one('arena_scorecard', 'GET /api/arena/agents/:handle/scorecard'),
  one('competitions_list', 'GET /api/competitions'),
  one('competition_board', 'GET /api/competitions/:slug'),
];
