/**
 * The simulated world: real-world questions, each listed by some venues with that venue's
 * own wording. A question is a pure function of (seed, key): the same seed always yields
 * the same catalog, on every process and after every restart.
 */
import { drawHash, hashToNormal, hashToUnit, streamKey, subHash } from '../../marketdata/sim/random.js';
import { VENUES, type Venue } from '../venues.js';
import type { CoinPrices } from './coin-prices.js';

export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;
/** Questions are numbered from this instant; our own capture history also begins here (2.12). */
export const QUESTION_EPOCH_MS = Date.UTC(2026, 0, 1);
/** Realistic profile: one new world question every 18 h, open 3–60 days. */
const SPACING_MS = 18 * HOUR_MS;
const MAX_DURATION_MS = 60 * DAY_MS;
/** Fast profile adds "flash" questions: one every 3 minutes, open 4–12 minutes. */
const FLASH_SPACING_MS = 3 * 60_000;
const FLASH_MAX_MS = 12 * 60_000;
/** Archive: this many resolved markets per venue per year before capture began. */
const ARCHIVE_PER_YEAR = 8;
export const ARCHIVE_FIRST_YEAR = 2016;
/** Share of questions whose outcome the market learns only at the end, and over how long (see Question.revealWindowMs). */
const LATE_REVEAL_SHARE = 0.3;
const LATE_REVEAL_MS = 6 * HOUR_MS;

/** Threshold questions anchor and settle on 4-hour marks: a bar opens there in every candle range. */
const ANCHOR_MS = 4 * HOUR_MS;

export type Category = 'politics' | 'crypto' | 'sports' | 'economics' | 'science' | 'culture';

/** A price-threshold question about a simulated coin: Yes when its price at settleAtMs is above `value`. */
export interface PriceThreshold {
  coinId: string;
  value: number;
  settleAtMs: number;
  /** Daily volatility of the coin's log price (with the profile's scale). */
  dailyVol: number;
  priceAt(atMs: number): number | null;
  /** The price known at atMs (the last quote once past it): what an open question is priced from. */
  knownAt(atMs: number): number | null;
  /** False until the price at settleAtMs is known (the question then cannot resolve yet). */
  settled: boolean;
}
export type Variant = 'plain' | 'flipped' | 'opaque';

export interface Listing {
  venue: Venue;
  variant: Variant;
  title: string;
  slug: string;
  outcomes: string[];
  /** Venue-specific liquidity (USD-like) and activity. */
  liquidity: number;
  volumeRatePerHour: number;
  /** Delay between the question's end and the venue's settlement. */
  settleDelayMs: number;
  resolvedAtVerified: boolean;
}

export interface Question {
  key: string;
  /** The canonical (plain) wording: distinct live questions never share it (see twinOf). */
  title: string;
  category: Category;
  kind: 'binary' | 'multi';
  openAt: number;
  endAt: number;
  /** Canonical outcome names (binary: Yes, No). */
  outcomes: string[];
  baseLogits: number[];
  /** Index of the winning canonical outcome; null = the question is voided. */
  winner: number | null;
  coinIds: string[];
  topics: string[];
  description: string;
  rules: string;
  settlementSource: string;
  /** Time scale of the probability noise (shorter for flash questions). */
  noiseScaleMs: number;
  /**
   * How long before its end the market learns the outcome: its information grows over this
   * window (src/pm/sim/path.ts). The question's whole life for most; LATE_REVEAL_MS for those
   * decided only at the end (a match, a vote count), which sit near their base odds until then
   * — the winner, drawn with those odds, is then often the outcome the market had below 50 %:
   * the upsets a calibration study needs.
   */
  revealWindowMs: number;
  listings: Listing[];
  /** Set on coin price questions when the coins' simulated prices are known (SimWorld with CoinPrices). */
  threshold?: PriceThreshold;
  /**
   * The earlier question worded exactly like this one, if any: this one is then not listed. A venue
   * does not list two identical questions, and the matcher could not tell them apart.
   */
  twinOf?: string;
}

interface Draws {
  u(k: number): number;
  n(k: number): number;
  pick<T>(k: number, items: readonly T[]): T;
}

function draws(seed: string, key: string): Draws {
  const h = drawHash(streamKey(seed, `pm-question:${key}`), 0);
  const unit = (k: number) => hashToUnit(subHash(drawHash(h, Math.floor(k / 8)), k % 8));
  return {
    u: unit,
    n: (k) => hashToNormal(subHash(drawHash(h, 1000 + Math.floor(k / 8)), k % 8)),
    pick: (k, items) => items[Math.floor(unit(k) * items.length) % items.length]!,
  };
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const dateText = (ms: number) => {
  const d = new Date(ms);
  return `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}, ${d.getUTCFullYear()}`;
};
const timeText = (ms: number) => new Date(ms).toISOString().slice(11, 16);

/** `base`: the reference price used when no simulated price path is given; `vol`: realistic daily volatility. */
const CRYPTO = [
  { coinId: '1', name: 'Bitcoin', symbol: 'BTC', base: 90_000, vol: 0.032 },
  { coinId: '1027', name: 'Ethereum', symbol: 'ETH', base: 3_000, vol: 0.042 },
  { coinId: '5426', name: 'Solana', symbol: 'SOL', base: 150, vol: 0.055 },
  { coinId: '52', name: 'XRP', symbol: 'XRP', base: 2, vol: 0.055 },
  { coinId: '74', name: 'Dogecoin', symbol: 'DOGE', base: 0.2, vol: 0.075 },
] as const;
type CryptoCoin = (typeof CRYPTO)[number];
const PLACES = ['Northhaven', 'Port Avery', 'Eastmoor', 'Lakeshire', 'Redwater', 'Silver Bay', 'Granite Falls', 'Westbrook'];
const PEOPLE = ['Alma Reyes', 'Jonas Whitfield', 'Priya Natarajan', 'Tomas Berg', 'Celine Okafor', 'Marcus Hale', 'Ines Duarte', 'Victor Lund'];
const TEAMS = ['Harbor City Hawks', 'Ridgeport Rovers', 'Kingsford Knights', 'Fairmont Falcons', 'Ashland Anchors', 'Bayview Bears', 'Cedar Vale Comets', 'Dunmore Dragons'];
const MISSIONS = ['Aurora-3 lunar lander', 'Helios solar probe', 'Vega crewed capsule', 'Orion cargo flight', 'Tethys Europa orbiter'];
const FILMS = ['The Last Meridian', 'Glass Harbor', 'Northern Static', 'A Quiet Engine', 'Saltwater Kings'];
const LEAGUES = ['Continental Football League', 'Pacific Basketball Association', 'Northern Hockey League'];

function roundNice(x: number): number {
  const mag = 10 ** Math.floor(Math.log10(x));
  return Math.round((x / mag) * 4) / 4 * mag;
}
const money = (x: number) => (x >= 1 ? x.toLocaleString('en-US', { maximumFractionDigits: 2 }) : String(Number(x.toPrecision(3))));

export function slugify(text: string): string {
  return text
    .toLowerCase()
    .replace(/[$,.']/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80)
    .replace(/-+$/g, '');
}

interface Wording {
  category: Category;
  kind: 'binary' | 'multi';
  /** title per variant; multi questions have no flipped form */
  titles: Record<Variant, string>;
  outcomes: string[];
  /** Outcome names as the opaque variant lists them (multi only). */
  opaqueOutcomes?: string[];
  coinIds: string[];
  topics: string[];
  description: string;
  settlementSource: string;
  threshold?: PriceThreshold;
  /** A price question whose anchor price is not known yet: not listed until it is. */
  pending?: boolean;
}

/**
 * A coin price question. With the simulated prices, the threshold is set near the coin's price
 * at the anchor (flash: the open minute, ±1 %; daily close: the 4-hour mark before opening,
 * −8 %..+8 %) and the question settles on the price at its end; without them (tests, no market)
 * it uses fixed reference prices and the drawn outcome, as every other question does.
 */
function cryptoWording(d: Draws, c: CryptoCoin, openAt: number, endAt: number, flash: boolean, prices: CoinPrices | undefined): Wording {
  const anchorAt = flash ? openAt : Math.floor(openAt / ANCHOR_MS) * ANCHOR_MS;
  const anchor = prices ? prices.priceAt(c.coinId, anchorAt) : null;
  let x: number;
  if (anchor === null) x = roundNice(c.base * (flash ? 0.9 + d.u(11) * 0.2 : 0.7 + d.u(11) * 0.7));
  else x = Number((anchor * (flash ? 0.99 + d.u(11) * 0.02 : 0.92 + d.u(11) * 0.16)).toPrecision(3));
  const date = dateText(endAt);
  const at = `${timeText(endAt)} UTC on ${date}`;
  const settle = prices ? prices.priceAt(c.coinId, endAt) : null;
  const threshold: PriceThreshold | undefined =
    prices && anchor !== null
      ? { coinId: c.coinId, value: x, settleAtMs: endAt, dailyVol: c.vol * prices.volatilityScale, priceAt: (t) => prices.priceAt(c.coinId, t), knownAt: (t) => prices.knownAt(c.coinId, t), settled: settle !== null }
      : undefined;
  const common = { category: 'crypto' as const, kind: 'binary' as const, outcomes: ['Yes', 'No'], coinIds: [c.coinId], threshold, pending: prices !== undefined && anchor === null };
  if (flash) {
    return {
      ...common,
      titles: {
        plain: `Will ${c.name} be above $${money(x)} at ${at}?`,
        flipped: `Will ${c.name} be below $${money(x)} at ${at}?`,
        opaque: `${c.name} price vs $${money(x)} at ${at}`,
      },
      topics: [c.symbol.toLowerCase(), 'crypto', 'short-term'],
      description: `Resolves on the ${c.symbol}/USD index price at ${at}.`,
      settlementSource: 'Composite spot index',
    };
  }
  return {
    ...common,
    titles: {
      plain: `Will ${c.name} close above $${money(x)} on ${date}?`,
      flipped: `Will ${c.name} close below $${money(x)} on ${date}?`,
      opaque: `${c.name} close vs $${money(x)} on ${date}`,
    },
    topics: [c.symbol.toLowerCase(), 'crypto', 'price'],
    description: `Resolves Yes if the ${c.symbol}/USD price at ${at} (the day's close) is above $${money(x)}.`,
    settlementSource: 'Composite spot index daily close',
  };
}

function wording(d: Draws, openAt: number, endAt: number, flash: boolean, prices?: CoinPrices): Wording {
  const date = dateText(endAt);
  if (flash) return cryptoWording(d, d.pick(10, CRYPTO), openAt, endAt, true, prices);
  const template = Math.floor(d.u(1) * 11);
  switch (template) {
    case 0:
    case 1:
      return cryptoWording(d, d.pick(10, CRYPTO), openAt, endAt, false, prices);
    case 2: {
      const c = d.pick(10, CRYPTO);
      return {
        category: 'crypto',
        kind: 'binary',
        titles: {
          plain: `Will ${c.name} reach a new all-time high by ${date}?`,
          flipped: `Will ${c.name} not reach a new all-time high by ${date}?`,
          opaque: `${c.name} new all-time high by ${date}`,
        },
        outcomes: ['Yes', 'No'],
        coinIds: [c.coinId],
        topics: [c.symbol.toLowerCase(), 'crypto', 'all-time-high'],
        description: `Resolves Yes if ${c.name} trades above its previous all-time high before ${date}.`,
        settlementSource: 'Composite spot index',
      };
    }
    case 3: {
      const who = d.pick(10, PEOPLE);
      const place = d.pick(11, PLACES);
      return {
        category: 'politics',
        kind: 'binary',
        titles: {
          plain: `Will ${who} win the ${place} mayoral election on ${date}?`,
          flipped: `Will ${who} lose the ${place} mayoral election on ${date}?`,
          opaque: `${place} mayoral election on ${date}: ${who}`,
        },
        outcomes: ['Yes', 'No'],
        coinIds: [],
        topics: ['elections', place.toLowerCase()],
        description: `Resolves Yes if ${who} is certified the winner of the ${place} mayoral election.`,
        settlementSource: `${place} election commission`,
      };
    }
    case 4: {
      const place = d.pick(11, PLACES);
      const start = Math.floor(d.u(12) * PEOPLE.length);
      const names = [0, 1, 2, 3].map((i) => PEOPLE[(start + i * 3) % PEOPLE.length]!);
      return {
        category: 'politics',
        kind: 'multi',
        titles: {
          plain: `Who will win the ${place} governor race on ${date}?`,
          flipped: `Who will win the ${place} governor race on ${date}?`,
          opaque: `Who will win the ${place} governor race on ${date}?`,
        },
        outcomes: names,
        opaqueOutcomes: names.map((n) => n.split(' ')[1]!.toUpperCase()),
        coinIds: [],
        topics: ['elections', place.toLowerCase()],
        description: `Resolves to the certified winner of the ${place} governor race.`,
        settlementSource: `${place} election commission`,
      };
    }
    case 5: {
      const a = Math.floor(d.u(10) * TEAMS.length);
      const b = (a + 1 + Math.floor(d.u(11) * (TEAMS.length - 1))) % TEAMS.length;
      const [ta, tb] = [TEAMS[a]!, TEAMS[b]!];
      return {
        category: 'sports',
        kind: 'binary',
        titles: {
          plain: `Will the ${ta} beat the ${tb} on ${date}?`,
          flipped: `Will the ${tb} beat the ${ta} on ${date}?`,
          opaque: `${ta} vs ${tb} on ${date}`,
        },
        outcomes: ['Yes', 'No'],
        coinIds: [],
        topics: ['sports', 'match'],
        description: `Regulation and overtime count; a tie or cancellation voids the market.`,
        settlementSource: 'League official results',
      };
    }
    case 6: {
      const league = d.pick(10, LEAGUES);
      const start = Math.floor(d.u(12) * TEAMS.length);
      const names = [0, 1, 2, 3].map((i) => TEAMS[(start + i * 2) % TEAMS.length]!);
      const year = new Date(endAt).getUTCFullYear();
      return {
        category: 'sports',
        kind: 'multi',
        titles: {
          plain: `Which team will win the ${league} ${year} final on ${date}?`,
          flipped: `Which team will win the ${league} ${year} final on ${date}?`,
          opaque: `Which team will win the ${league} ${year} final on ${date}?`,
        },
        outcomes: names,
        opaqueOutcomes: names.map((n) => n.split(' ').slice(-1)[0]!.toUpperCase()),
        coinIds: [],
        topics: ['sports', 'championship'],
        description: `Resolves to the team that wins the ${league} ${year} final.`,
        settlementSource: 'League official results',
      };
    }
    // Fed and CPI questions name the day (not only the month), like every other template: two of
    // them ending in one month are different questions and must read differently.
    case 7: {
      return {
        category: 'economics',
        kind: 'binary',
        titles: {
          plain: `Will the Fed cut rates at its ${date} meeting?`,
          flipped: `Will the Fed not cut rates at its ${date} meeting?`,
          opaque: `Fed rate decision ${date} meeting: cut`,
        },
        outcomes: ['Yes', 'No'],
        coinIds: [],
        topics: ['fed', 'rates', 'macro'],
        description: `Resolves Yes if the FOMC lowers the target range at its meeting ending ${date}.`,
        settlementSource: 'Federal Reserve statement',
      };
    }
    case 8: {
      const x = (2 + Math.floor(d.u(10) * 8) / 4).toFixed(2);
      return {
        category: 'economics',
        kind: 'binary',
        titles: {
          plain: `Will US CPI inflation be above ${x}% in the ${date} report?`,
          flipped: `Will US CPI inflation be below ${x}% in the ${date} report?`,
          opaque: `US CPI inflation ${date} report vs ${x}%`,
        },
        outcomes: ['Yes', 'No'],
        coinIds: [],
        topics: ['inflation', 'cpi', 'macro'],
        description: `Resolves on the year-over-year CPI figure in the report published on ${date}.`,
        settlementSource: 'Bureau of Labor Statistics',
      };
    }
    case 9: {
      const m = d.pick(10, MISSIONS);
      return {
        category: 'science',
        kind: 'binary',
        titles: {
          plain: `Will the ${m} launch before ${date}?`,
          flipped: `Will the ${m} launch after ${date}?`,
          opaque: `${m} launch timing ${date}`,
        },
        outcomes: ['Yes', 'No'],
        coinIds: [],
        topics: ['space', 'launch'],
        description: `Resolves Yes if the ${m} lifts off before ${date} (UTC).`,
        settlementSource: 'Launch provider statement',
      };
    }
    default: {
      const f = d.pick(10, FILMS);
      const x = 20 + Math.floor(d.u(11) * 16) * 5;
      return {
        category: 'culture',
        kind: 'binary',
        titles: {
          plain: `Will ${f} gross over $${x}M on its opening weekend by ${date}?`,
          flipped: `Will ${f} gross under $${x}M on its opening weekend by ${date}?`,
          opaque: `${f} opening weekend gross $${x}M by ${date}`,
        },
        outcomes: ['Yes', 'No'],
        coinIds: [],
        topics: ['box-office', 'film'],
        description: `Resolves on the reported domestic opening-weekend gross of ${f}.`,
        settlementSource: 'Box-office tracker',
      };
    }
  }
}

function buildQuestion(
  seed: string,
  key: string,
  openAt: number,
  endAt: number,
  flash: boolean,
  venues: readonly Venue[],
  popularity: number,
  prices?: CoinPrices,
  fixedWording?: (d: Draws) => Wording,
): Question & { pending?: boolean } {
  const d = draws(seed, key);
  const w = fixedWording ? fixedWording(d) : wording(d, openAt, endAt, flash, prices);
  const n = w.outcomes.length;
  const baseLogits = w.outcomes.map((_, i) => (w.kind === 'binary' ? (i === 0 ? d.n(20) * 0.9 : 0) : d.n(20 + i) * 0.8));
  // The winner is drawn with the market's own base odds, so a calibrated market is possible.
  const weights = baseLogits.map((l) => Math.exp(l));
  const total = weights.reduce((a, b) => a + b, 0);
  let winner: number | null = null;
  let acc = 0;
  const r = d.u(30);
  for (let i = 0; i < n; i += 1) {
    acc += weights[i]! / total;
    if (r < acc || i === n - 1) {
      winner = i;
      break;
    }
  }
  if (d.u(31) < 0.04) winner = null;
  // A price question's outcome is the simulated price at its end (unknown until then).
  if (w.threshold) winner = w.threshold.settled ? (w.threshold.priceAt(w.threshold.settleAtMs)! > w.threshold.value ? 0 : 1) : null;
  const listings: Listing[] = [];
  venues.forEach((venue, vi) => {
    if (d.u(40 + vi) >= popularity) return;
    const v = d.u(60 + vi);
    const variant: Variant = w.kind === 'multi' ? (v < 0.15 ? 'opaque' : 'plain') : v < 0.74 ? 'plain' : v < 0.93 ? 'flipped' : 'opaque';
    const title = w.titles[variant];
    const outcomes = w.kind === 'binary' ? ['Yes', 'No'] : variant === 'opaque' ? w.opaqueOutcomes! : w.outcomes;
    const liquidity = Math.round(Math.exp(9 + d.n(80 + vi) * 1.1) * (venue.kind === 'market' ? 1 : 0.3));
    listings.push({
      venue,
      variant,
      title,
      slug: `${slugify(title)}-${key}`.replace(/--+/g, '-'),
      outcomes,
      liquidity,
      volumeRatePerHour: liquidity * (0.02 + d.u(100 + vi) * 0.08),
      // Price questions settle a minute after their end at the earliest: the market has passed that minute by then.
      settleDelayMs: Math.floor(d.u(120 + vi) * (flash ? 2 * 60_000 : 2 * HOUR_MS)) + (w.threshold ? 60_000 : 0),
      resolvedAtVerified: d.u(140 + vi) < venue.verifiedTimeShare,
    });
  });
  return {
    key,
    title: w.titles.plain,
    category: w.category,
    kind: w.kind,
    openAt,
    endAt,
    outcomes: w.outcomes,
    baseLogits,
    winner,
    coinIds: w.coinIds,
    topics: w.topics,
    description: w.description,
    rules: `${w.description} If the outcome cannot be determined or the event is cancelled, the market resolves void.`,
    settlementSource: w.settlementSource,
    noiseScaleMs: flash ? 60_000 : 6 * HOUR_MS,
    revealWindowMs: d.u(32) < LATE_REVEAL_SHARE ? Math.min(LATE_REVEAL_MS, endAt - openAt) : endAt - openAt,
    listings,
    ...(w.threshold ? { threshold: w.threshold } : {}),
    ...(w.pending ? { pending: true } : {}),
  };
}

const listed = (q: Question & { pending?: boolean }) => !q.pending && !q.twinOf;
const utcDay = (ms: number) => Math.floor(ms / DAY_MS);

type Timing = { openAt: number; end: number; template: number };
/** Memo of regularTiming (a pure function): the twin search reads each question's timing ~80 times. */
const timings = new Map<string, Timing>();

/** When regular question j opens and ends, and its wording template: cheap, to find its twins. */
function regularTiming(seed: string, j: number, prices?: CoinPrices): Timing {
  const memo = `${prices ? 1 : 0}|${j}|${seed}`;
  const known = timings.get(memo);
  if (known) return known;
  const d = draws(seed, `q${j}`);
  const openAt = QUESTION_EPOCH_MS + j * SPACING_MS + Math.floor(d.u(2) * SPACING_MS);
  const endAt = openAt + 3 * DAY_MS + Math.floor(d.u(3) ** 2 * (MAX_DURATION_MS - 3 * DAY_MS));
  const template = Math.floor(d.u(1) * 11);
  // Coin price questions (the first two of eleven templates) end on a 4-hour mark when they settle on the price path.
  const onPricePath = prices !== undefined && template <= 1;
  // Templates 0 and 1 are both the coin close question: one wording.
  const timing = { openAt, end: onPricePath ? Math.ceil(endAt / ANCHOR_MS) * ANCHOR_MS : Math.ceil(endAt / 60_000) * 60_000, template: Math.max(template, 1) };
  if (timings.size >= 20_000) timings.clear();
  timings.set(memo, timing);
  return timing;
}

function buildRegular(seed: string, j: number, prices?: CoinPrices): Question & { pending?: boolean } {
  const { openAt, end } = regularTiming(seed, j, prices);
  return buildQuestion(seed, `q${j}`, openAt, end, false, VENUES, 0.15 + draws(seed, `q${j}`).u(4) * 0.45, prices);
}

/** Earlier regular questions that can still be open when question j ends. */
const REGULAR_LOOKBACK = Math.ceil((MAX_DURATION_MS + SPACING_MS + ANCHOR_MS) / SPACING_MS);

/**
 * World question number j of the realistic catalog. Every title names its end date, so a twin (an
 * earlier question worded the same) has the same template and end day: only those are built to compare.
 */
export function regularQuestion(seed: string, j: number, prices?: CoinPrices): Question & { pending?: boolean } {
  const q = buildRegular(seed, j, prices);
  const { end, template } = regularTiming(seed, j, prices);
  const twin = regularTwin(seed, Math.max(0, j - REGULAR_LOOKBACK), j, (t) => t.template === template && utcDay(t.end) === utcDay(end), q.title, prices);
  return twin === null ? q : { ...q, twinOf: twin };
}

/** The first regular question in [from, to) that may read alike (by its timing) and does, or null. */
function regularTwin(seed: string, from: number, to: number, alike: (t: Timing) => boolean, title: string, prices?: CoinPrices): string | null {
  for (let i = from; i < to; i += 1) {
    if (alike(regularTiming(seed, i, prices)) && buildRegular(seed, i, prices).title === title) return `q${i}`;
  }
  return null;
}

function flashTiming(seed: string, k: number): { d: Draws; openAt: number; endAt: number } {
  const d = draws(seed, `f${k}`);
  const openAt = QUESTION_EPOCH_MS + k * FLASH_SPACING_MS;
  return { d, openAt, endAt: openAt + 4 * 60_000 + Math.floor(d.u(3) * 8) * 60_000 };
}

function buildFlash(seed: string, k: number, prices?: CoinPrices): Question & { pending?: boolean } {
  const { d, openAt, endAt } = flashTiming(seed, k);
  return buildQuestion(seed, `f${k}`, openAt, endAt, true, headlineVenues(d), 1, prices);
}

/**
 * Flash question number k (fast profile): listed by 2–4 venues including polymarket and kalshi.
 * Not listed when an earlier flash question reads the same (titles name the end minute).
 */
export function flashQuestion(seed: string, k: number, prices?: CoinPrices): Question & { pending?: boolean } {
  const q = buildFlash(seed, k, prices);
  for (let i = Math.max(0, k - Math.ceil(FLASH_MAX_MS / FLASH_SPACING_MS)); i < k; i += 1) {
    if (flashTiming(seed, i).endAt === q.endAt && buildFlash(seed, i, prices).title === q.title) return { ...q, twinOf: `f${i}` };
  }
  return q;
}

/** Polymarket, Kalshi and one other money venue (drawn). */
function headlineVenues(d: Draws): Venue[] {
  const extra = VENUES.filter((v) => !['polymarket', 'kalshi'].includes(v.id) && v.kind === 'market');
  return [VENUES[0]!, VENUES[1]!, extra[Math.floor(d.u(5) * extra.length)]!];
}

/**
 * Bitcoin's daily close question for UTC day `day` (days since the Unix epoch): open the whole
 * day, settling on the simulated price at the next midnight, so BTC always has an open market
 * (this one, or the regular question worded like it).
 * Only with the simulated prices (it has no meaning without them).
 */
export function dailyBitcoinQuestion(seed: string, day: number, prices: CoinPrices): Question & { pending?: boolean } {
  const openAt = day * DAY_MS;
  const endAt = openAt + DAY_MS;
  const d = draws(seed, `b${day}`);
  const q = buildQuestion(seed, `b${day}`, openAt, endAt, false, headlineVenues(d), 1, prices, (dd) => cryptoWording(dd, CRYPTO[0], openAt, endAt, false, prices));
  // A regular Bitcoin close question ending that date may read the same; it opened days earlier, so it stays and this one is not listed.
  const last = Math.floor((endAt + DAY_MS - QUESTION_EPOCH_MS) / SPACING_MS);
  const twin = regularTwin(seed, Math.max(0, last - REGULAR_LOOKBACK - Math.ceil(DAY_MS / SPACING_MS)), last + 1, (t) => t.template === 1 && utcDay(t.end) === utcDay(endAt), q.title, prices);
  return twin === null ? q : { ...q, twinOf: twin };
}

/** Questions of the realistic catalog open at `nowMs` or ended within `recentMs` before it. */
export function regularQuestionsAround(seed: string, nowMs: number, recentMs: number, prices?: CoinPrices): Question[] {
  const first = Math.max(0, Math.floor((nowMs - recentMs - MAX_DURATION_MS - SPACING_MS - QUESTION_EPOCH_MS) / SPACING_MS));
  const last = Math.floor((nowMs - QUESTION_EPOCH_MS) / SPACING_MS);
  const out: Question[] = [];
  for (let j = first; j <= last; j += 1) {
    const q = regularQuestion(seed, j, prices);
    if (q.openAt <= nowMs && q.endAt >= nowMs - recentMs && listed(q)) out.push(q);
  }
  if (prices) {
    for (let day = Math.floor((nowMs - recentMs) / DAY_MS) - 1; day <= Math.floor(nowMs / DAY_MS); day += 1) {
      const q = dailyBitcoinQuestion(seed, day, prices);
      if (q.openAt <= nowMs && q.endAt >= nowMs - recentMs && listed(q)) out.push(q);
    }
  }
  return out;
}

export function flashQuestionsAround(seed: string, nowMs: number, recentMs: number, prices?: CoinPrices): Question[] {
  const first = Math.max(0, Math.floor((nowMs - recentMs - FLASH_MAX_MS - QUESTION_EPOCH_MS) / FLASH_SPACING_MS));
  const last = Math.floor((nowMs - QUESTION_EPOCH_MS) / FLASH_SPACING_MS);
  const out: Question[] = [];
  for (let k = first; k <= last; k += 1) {
    const q = flashQuestion(seed, k, prices);
    if (q.openAt <= nowMs && q.endAt >= nowMs - recentMs && listed(q)) out.push(q);
  }
  return out;
}

/**
 * The archive: resolved single-venue markets per year, from each venue's first year until capture
 * began. A question worded like one already in it (another venue's, same template and day) is left out.
 */
export function archiveCatalog(seed: string): Question[] {
  const byTitle = new Map<string, Question>();
  for (const q of VENUES.flatMap((venue) => archiveQuestions(seed, venue))) if (!byTitle.has(q.title)) byTitle.set(q.title, q);
  return [...byTitle.values()];
}

function archiveQuestions(seed: string, venue: Venue): Question[] {
  const out: Question[] = [];
  const lastYear = new Date(QUESTION_EPOCH_MS).getUTCFullYear() - 1;
  for (let year = Math.max(ARCHIVE_FIRST_YEAR, venue.sinceYear); year <= lastYear; year += 1) {
    for (let i = 0; i < ARCHIVE_PER_YEAR; i += 1) {
      const key = `a${year}${venue.id.slice(0, 3)}${i}`;
      const d = draws(seed, key);
      const openAt = Date.UTC(year, 0, 1) + Math.floor(d.u(2) * 330 * DAY_MS);
      const endAt = Math.ceil((openAt + 5 * DAY_MS + Math.floor(d.u(3) * 30 * DAY_MS)) / 60_000) * 60_000;
      out.push(buildQuestion(seed, key, openAt, endAt, false, [venue], 1));
    }
  }
  return out;
}
