import type { VenueAdapter } from '../types.js';
import type { FetchLike } from './http.js';
import { kalshiAdapter } from './kalshi.js';
import { manifoldAdapter } from './manifold.js';
import { polymarketAdapter } from './polymarket.js';

/** The live HTTP venues (MARKET_DATA=live); every other venue stays simulated. */
export function liveAdapters(fetchImpl: FetchLike): VenueAdapter[] {
  return [polymarketAdapter(fetchImpl), kalshiAdapter(fetchImpl), manifoldAdapter(fetchImpl)];
}
