/** The Crypto Fear & Greed Index of alternative.me (https://api.alternative.me/fng/). */
import type { FearGreed } from '../../domain/fear-greed.js';
import { getJson, type HttpOptions } from './http-json.js';
import { toFearGreed } from './sample-market.js';

export const ALTERNATIVE_ME_URL = 'https://api.alternative.me/fng/?limit=1';

export interface FearGreedReading {
  fearGreed: FearGreed;
  /** unix ms the index was published for */
  asOfMs: number | null;
}

/** {"name":"Fear and Greed Index","data":[{"value":"40","value_classification":"Fear","timestamp":"1551157200",…}],"metadata":{"error":null}} */
export function parseFearGreed(json: unknown): FearGreedReading {
  const data = (json as { data?: unknown } | null)?.data;
  const first = Array.isArray(data) ? (data[0] as Record<string, unknown> | undefined) : undefined;
  const raw = first?.value;
  // Number(null) and Number('') are 0: a missing value is not "Extreme Fear"
  const value = typeof raw === 'number' || (typeof raw === 'string' && raw.trim() !== '') ? Number(raw) : Number.NaN;
  const fearGreed = first ? toFearGreed(value, typeof first.value_classification === 'string' ? first.value_classification : null) : null;
  if (!fearGreed) throw new TypeError('fng: expected data[0].value 0..100');
  const ts = Number(first!.timestamp);
  return { fearGreed, asOfMs: Number.isFinite(ts) && ts > 0 ? ts * 1000 : null };
}

export class AlternativeMeClient {
  readonly name = 'alternative.me';
  constructor(
    private readonly http: HttpOptions,
    private readonly url: string = ALTERNATIVE_ME_URL,
  ) {}

  async latest(): Promise<FearGreedReading> {
    return parseFearGreed(await getJson(this.url, this.http));
  }
}
