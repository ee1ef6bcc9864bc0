/**
 * Routes whose path parameter names a resource the contract answers 404 for when unknown (§7):
 * a parameter that cannot name anything (a control character, an id beyond 2^53 − 1) is such an
 * unknown id. Malformed parameters (type, length, pattern) and routes not listed answer 400
 * `invalid_request` naming the parameter (the contract's "bad handle", "bad id").
 */
export const UNKNOWN_PARAM_CODES: Readonly<Record<string, string>> = {
  '/api/admin/keys/:keyId': 'key_not_found',
  '/api/admin/keys/:keyId/revoke': 'key_not_found',
  '/api/admin/keys/:keyId/rotate': 'key_not_found',
  '/api/admin/competitions/:slug': 'competition_not_found',
  '/api/admin/competitions/:slug/entries': 'competition_not_found',
  '/api/admin/competitions/:slug/entries/:keyId': 'entry_not_found',
  '/api/agent/market/:coinId': 'coin_not_found',
  '/api/agent/market/:coinId/candles': 'coin_not_found',
  '/api/arena/decisions/:decisionUuid': 'decision_not_found',
  '/api/arena/scorecard-runs/:id': 'run_not_found',
  '/api/competitions/:slug': 'competition_not_found',
  '/api/prediction-markets/canonical/:key': 'event_not_found',
  '/api/prediction-markets/event/:source/:slug/price-history': 'event_not_found',
  '/api/prediction-markets/events/:source/:slug': 'event_not_found',
};
