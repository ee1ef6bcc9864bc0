/**
 * Simulated fiat rates (units of the currency per 1 USD). Each rate wanders around a
 * realistic base level as smooth value noise of absolute time: deterministic for
 * (seed, code, minute), bounded, and free of history, so any minute can be read directly.
 */
import { drawHash, hashToNormal, streamKey, type SimSeed } from './random.js';

interface FiatCurrency {
  code: string;
  name: string;
  /** Units per USD at the sim's base level (2025-26 ballpark). */
  baseRate: number;
  /** Typical size of the slow wander, as a log-deviation (0.02 = about 2 %). */
  wander: number;
}

const MAJOR = 0.02;
const EMERGING = 0.045;
const PEGGED = 0.0008;

export const FIAT_CURRENCIES: readonly FiatCurrency[] = [
  { code: 'USD', name: 'US Dollar', baseRate: 1, wander: 0 },
  { code: 'EUR', name: 'Euro', baseRate: 0.86, wander: MAJOR },
  { code: 'GBP', name: 'British Pound', baseRate: 0.745, wander: MAJOR },
  { code: 'JPY', name: 'Japanese Yen', baseRate: 147, wander: MAJOR },
  { code: 'CNY', name: 'Chinese Yuan', baseRate: 7.15, wander: MAJOR / 2 },
  { code: 'KRW', name: 'South Korean Won', baseRate: 1390, wander: MAJOR },
  { code: 'INR', name: 'Indian Rupee', baseRate: 87.5, wander: MAJOR },
  { code: 'BRL', name: 'Brazilian Real', baseRate: 5.45, wander: EMERGING },
  { code: 'CAD', name: 'Canadian Dollar', baseRate: 1.38, wander: MAJOR },
  { code: 'AUD', name: 'Australian Dollar', baseRate: 1.53, wander: MAJOR },
  { code: 'CHF', name: 'Swiss Franc', baseRate: 0.8, wander: MAJOR },
  { code: 'MXN', name: 'Mexican Peso', baseRate: 18.6, wander: EMERGING },
  { code: 'SGD', name: 'Singapore Dollar', baseRate: 1.29, wander: MAJOR / 2 },
  { code: 'HKD', name: 'Hong Kong Dollar', baseRate: 7.82, wander: PEGGED },
  { code: 'TRY', name: 'Turkish Lira', baseRate: 41, wander: EMERGING },
  { code: 'ZAR', name: 'South African Rand', baseRate: 17.6, wander: EMERGING },
  { code: 'SEK', name: 'Swedish Krona', baseRate: 9.5, wander: MAJOR },
  { code: 'NOK', name: 'Norwegian Krone', baseRate: 10.1, wander: MAJOR },
  { code: 'PLN', name: 'Polish Zloty', baseRate: 3.65, wander: MAJOR },
  { code: 'NZD', name: 'New Zealand Dollar', baseRate: 1.69, wander: MAJOR },
  { code: 'IDR', name: 'Indonesian Rupiah', baseRate: 16_300, wander: EMERGING },
  { code: 'THB', name: 'Thai Baht', baseRate: 32.5, wander: MAJOR },
  { code: 'AED', name: 'UAE Dirham', baseRate: 3.6725, wander: PEGGED / 4 },
  { code: 'SAR', name: 'Saudi Riyal', baseRate: 3.75, wander: PEGGED / 4 },
];

export const FIAT_CODES: readonly string[] = FIAT_CURRENCIES.map((c) => c.code);

const BY_CODE = new Map(FIAT_CURRENCIES.map((c) => [c.code, c]));

export function isFiatCode(code: string): boolean {
  return BY_CODE.has(code.toUpperCase());
}

// Octaves of the wander: (knot spacing in minutes, share of the amplitude).
const OCTAVES: readonly (readonly [number, number])[] = [
  [7 * 1440, 0.85],
  [1440, 0.45],
  [60, 0.03],
];

/** Smooth (C1) noise: normals at knots every `spacing` minutes, smoothstep in between. */
function valueNoise(stream: number, minute: number, spacing: number): number {
  const position = minute / spacing;
  const knot = Math.floor(position);
  const t = position - knot;
  const ease = t * t * (3 - 2 * t);
  const left = hashToNormal(drawHash(stream, knot));
  const right = hashToNormal(drawHash(stream, knot + 1));
  return left + (right - left) * ease;
}

/** Units of `code` per 1 USD at minuteIndex; USD is exactly 1; null for an unknown code. */
export function fiatRateAt(seed: SimSeed, code: string, minuteIndex: number): number | null {
  const currency = BY_CODE.get(code.toUpperCase());
  if (currency === undefined) return null;
  if (currency.wander === 0) return currency.baseRate;
  let deviation = 0;
  OCTAVES.forEach(([spacing, share], octave) => {
    deviation += share * valueNoise(streamKey(seed, `fiat:${currency.code}:${octave}`), minuteIndex, spacing);
  });
  return currency.baseRate * Math.exp(currency.wander * deviation);
}

/** Every known rate at one minute, e.g. for a rates table refreshed by a job. */
export function fiatRatesAt(seed: SimSeed, minuteIndex: number): Record<string, number> {
  const rates: Record<string, number> = {};
  for (const c of FIAT_CURRENCIES) rates[c.code] = fiatRateAt(seed, c.code, minuteIndex)!;
  return rates;
}
