/**
 * Canonical cross-venue events. Markets are matched and oriented from their question
 * text and outcome names only — never from prices — so a disagreement between venues
 * can never be "explained away" by the matcher.
 */
import { createHash } from 'node:crypto';

export interface MatchInput {
  source: string;
  slug: string;
  title: string;
  kind: 'binary' | 'multi';
  outcomes: string[];
  liquidity: number;
  /** When the market closes (its end time): tells apart same-worded questions of one venue. */
  endAtMs: number | null;
}

export type Orientation = 'same' | 'flipped' | 'unknown';

export interface MatchResult {
  source: string;
  slug: string;
  canonicalKey: string | null;
  orientation: Orientation | null;
  confidence: number | null;
  basis: string | null;
}

/** Words that flip a yes/no question, mapped to the positive form. */
const ANTONYMS: Record<string, [string, 1 | -1]> = {
  above: ['above', 1],
  below: ['above', -1],
  over: ['over', 1],
  under: ['over', -1],
  win: ['win', 1],
  lose: ['win', -1],
  before: ['before', 1],
  after: ['before', -1],
  higher: ['higher', 1],
  lower: ['higher', -1],
};
const NEGATIONS = new Set(['not', 'fail', 'never', "won't", 'wont']);
const STOP = new Set(['will', 'the', 'a', 'an', 'on', 'in', 'at', 'of', 'its', 'by', 'be', 'to', 'is', 'does', 'vs', 'versus', 'and', 'or', 'who', 'which', 'how', 'what', 'new']);
const SYNONYMS: Record<string, string> = { btc: 'bitcoin', eth: 'ethereum', sol: 'solana', doge: 'dogecoin', fed: 'fed', fomc: 'fed', rates: 'rate' };
const QUESTION_START = /^(will|is|does|do|can|who|which|how|what)\b/i;
/** Month names are part of a date like its digits: "Oct 2025" and "Sep 2025" are different questions. */
const MONTH_NAMES = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const MONTHS = new Map<string, string>([['sept', 'sep'], ...MONTH_NAMES.flatMap((m) => [[m, m.slice(0, 3)], [m.slice(0, 3), m.slice(0, 3)]] as [string, string][])]);
/** Names read as names however a title is cased (after SYNONYMS): the assets questions are most often about. */
const KNOWN_NAMES = new Set(['bitcoin', 'ethereum', 'solana', 'dogecoin', 'xrp', 'cardano', 'litecoin', 'bnb']);
/** A title where at least this share of later words is capitalized is Title Cased: its capitals say nothing. */
const TITLE_CASE_SHARE = 0.7;

export interface Analysis {
  tokens: string[];
  set: Set<string>;
  /** The numbers and month names (dates, thresholds): markets match only when these are identical. */
  numbers: string;
  /** +1 / −1 for a yes/no question; 0 when what "Yes" means cannot be read from the text. */
  polarity: 0 | 1 | -1;
  /** "A beat B" questions: the side that "Yes" backs. */
  subject: string | null;
  /** Who or what the question is about, read from capitals and KNOWN_NAMES ("Bitcoin", "Trump", "Lakers"). */
  names: Set<string>;
}

function stem(word: string): string {
  if (Object.hasOwn(SYNONYMS, word)) return SYNONYMS[word]!;
  return word.length > 3 && word.endsWith('s') && !word.endsWith('ss') ? word.slice(0, -1) : word;
}

export function analyze(title: string, kind: 'binary' | 'multi'): Analysis {
  const text = title
    .toLowerCase()
    .replace(/(\d),(\d)/g, '$1$2')
    .replace(/(\d+(?:\.\d+)?)k\b/g, (_, n: string) => String(Number(n) * 1000));
  const raw = text.split(/[^a-z0-9.'%]+/).map((w) => w.replace(/^[.']+|[.'%]+$/g, '')).filter(Boolean);
  let sign: 1 | -1 = 1;
  const tokens: string[] = [];
  let subject: string | null = null;
  for (const word of raw) {
    if (NEGATIONS.has(word)) {
      sign = sign === 1 ? -1 : 1;
      continue;
    }
    // own keys only: a title saying "constructor" found Object's constructor here
    const ant = Object.hasOwn(ANTONYMS, word) ? ANTONYMS[word] : undefined;
    if (ant) {
      tokens.push(ant[0]);
      if (ant[1] === -1) sign = sign === 1 ? -1 : 1;
      continue;
    }
    if (word === 'beat' || word === 'defeat') {
      subject = tokens.filter((t) => !STOP.has(t)).join(' ');
      tokens.push('beat');
      continue;
    }
    if (STOP.has(word)) continue;
    tokens.push(stem(word));
  }
  const isQuestion = QUESTION_START.test(title.trim()) && title.trim().endsWith('?');
  const polarity: 0 | 1 | -1 = kind === 'multi' ? 1 : isQuestion ? sign : 0;
  const set = new Set(tokens.filter((t) => t !== 'beat' || subject === null));
  const numbers = [...new Set([...set].filter((t) => /\d/.test(t) || MONTHS.has(t)).map((t) => MONTHS.get(t) ?? t))].sort().join(',');
  return { tokens, set, numbers, polarity, subject, names: namesOf(title, set) };
}

/**
 * The proper names of a title, as tokens: a capitalized word after the first (or a known name),
 * not a month or a stop word. In a Title Cased title only KNOWN_NAMES count.
 */
function namesOf(title: string, tokens: Set<string>): Set<string> {
  const words = title.split(/[^A-Za-z0-9']+/).filter((w) => /^[A-Za-z]/.test(w)).slice(1);
  const long = words.filter((w) => w.length >= 4);
  const titleCased = long.length > 0 && long.filter((w) => /^[A-Z]/.test(w)).length / long.length >= TITLE_CASE_SHARE;
  const names = new Set<string>();
  for (const word of words) {
    const token = stem(word.toLowerCase());
    if (!tokens.has(token) || MONTHS.has(token)) continue;
    if (KNOWN_NAMES.has(token) || (!titleCased && /^[A-Z]/.test(word))) names.add(token);
  }
  for (const token of tokens) if (KNOWN_NAMES.has(token)) names.add(token);
  return names;
}

/**
 * Two texts that each name someone the other does not ("Bitcoin" / "Ethereum", "Trump" / "Harris")
 * ask about different things, however much of the rest they share; one naming more ("… UTC") is
 * only more wording.
 */
function namesDiffer(a: Analysis, b: Analysis): boolean {
  const missing = (x: Set<string>, y: Set<string>) => [...x].some((n) => !y.has(n));
  return missing(a.names, b.names) && missing(b.names, a.names);
}

function jaccard(a: Set<string>, b: Set<string>): number {
  let inter = 0;
  for (const t of a) if (b.has(t)) inter += 1;
  return inter / (a.size + b.size - inter);
}

const signature = (kind: string, set: Set<string>) => `${kind}|${[...set].sort().join(' ')}`;
const normName = (name: string) => name.toLowerCase().replace(/[^a-z0-9]+/g, ' ').trim();
export const FUZZY_THRESHOLD = 0.75;
/** A split cluster's group never spans more close time than this (see splitByVenue). */
export const CLOSE_TOLERANCE_MS = 86_400_000;

/** Orientation of `m` relative to the cluster anchor `a`. */
export function orient(a: MatchInput & { an: Analysis }, m: MatchInput & { an: Analysis }): Orientation {
  if (a === m) return 'same';
  if (a.kind === 'multi') {
    const names = new Set(a.outcomes.map(normName));
    return m.outcomes.length === a.outcomes.length && m.outcomes.every((o) => names.has(normName(o))) ? 'same' : 'unknown';
  }
  if (a.an.polarity === 0 || m.an.polarity === 0) return 'unknown';
  let sign = a.an.polarity * m.an.polarity;
  if (a.an.subject !== null && m.an.subject !== null && a.an.subject !== m.an.subject) sign = -sign;
  else if ((a.an.subject === null) !== (m.an.subject === null)) return 'unknown';
  return sign > 0 ? 'same' : 'flipped';
}

/**
 * One voice per venue. A venue does not list one question twice, so two of its markets that read
 * alike are different questions (the same wording for another date or round). Such a text cluster
 * is split by close time: the nearest close times join first, never two markets of one venue,
 * never more than CLOSE_TOLERANCE_MS apart; a market without a close time cannot be placed and is
 * left out. A cluster where no venue repeats stays whole: venues often close one question hours or
 * days apart, and its text already matched.
 */
function splitByVenue<T extends MatchInput>(members: T[]): { groups: T[][]; unplaced: T[] } {
  const venues = new Set(members.map((m) => m.source));
  if (venues.size === members.length) return { groups: [members], unplaced: [] };
  const timed = members
    .filter((m) => m.endAtMs !== null)
    .sort((a, b) => a.endAtMs! - b.endAtMs! || (a.source + '/' + a.slug).localeCompare(b.source + '/' + b.slug));
  const group = timed.map((m) => ({ members: [m], venues: new Set([m.source]), from: m.endAtMs!, to: m.endAtMs! }));
  const at = timed.map((_, i) => i);
  const root = (i: number): number => (at[i] === i ? i : (at[i] = root(at[i]!)));
  const pairs: [number, number][] = [];
  for (let i = 0; i < timed.length; i += 1) for (let j = i + 1; j < timed.length; j += 1) pairs.push([i, j]);
  // Stable sort: equal gaps keep the (close time, source/slug) order, so the result never depends on input order.
  pairs.sort(([a, b], [c, d]) => timed[b]!.endAtMs! - timed[a]!.endAtMs! - (timed[d]!.endAtMs! - timed[c]!.endAtMs!));
  for (const [i, j] of pairs) {
    const [a, b] = [group[root(i)]!, group[root(j)]!];
    if (a === b || [...b.venues].some((v) => a.venues.has(v)) || Math.max(a.to, b.to) - Math.min(a.from, b.from) > CLOSE_TOLERANCE_MS) continue;
    a.members.push(...b.members);
    for (const v of b.venues) a.venues.add(v);
    [a.from, a.to] = [Math.min(a.from, b.from), Math.max(a.to, b.to)];
    at[root(j)] = root(i);
  }
  // Each group lists its members in (close time, source/slug) order: the first names a split group.
  const order = new Map(timed.map((m, i) => [m, i]));
  const split = timed.map((_, i) => i).filter((i) => root(i) === i).map((i) => group[i]!.members.sort((a, b) => order.get(a)! - order.get(b)!));
  return { groups: split, unplaced: members.filter((m) => m.endAtMs === null) };
}

/**
 * Groups markets into canonical events: identical token signatures first, then groups
 * whose tokens overlap ≥ 75% with the same numbers (dates, thresholds) and no names that differ
 * on both sides. Clusters with
 * members from 2+ venues get a canonical key; the key is a hash of the smallest member
 * signature, so it stays the same while the question text does. A cluster holds at most one
 * market per venue (splitByVenue).
 */
export function matchMarkets(inputs: MatchInput[]): MatchResult[] {
  const items = inputs.map((m) => ({ ...m, an: analyze(m.title, m.kind) }));
  const groups = new Map<string, typeof items>();
  for (const it of items) {
    const sig = signature(it.kind, it.an.set);
    if (!groups.has(sig)) groups.set(sig, []);
    groups.get(sig)!.push(it);
  }
  const sigs = [...groups.keys()];
  const parent = new Map(sigs.map((s) => [s, s]));
  const find = (s: string): string => {
    let r = s;
    while (parent.get(r) !== r) r = parent.get(r)!;
    parent.set(s, r);
    return r;
  };
  const fuzzy = new Map<string, number>();
  const byNumbers = new Map<string, string[]>();
  for (const s of sigs) {
    const first = groups.get(s)![0]!;
    const block = `${first.kind}|${first.an.numbers}`;
    if (!byNumbers.has(block)) byNumbers.set(block, []);
    byNumbers.get(block)!.push(s);
  }
  for (const block of byNumbers.values()) {
    for (let i = 0; i < block.length; i += 1) {
      for (let j = i + 1; j < block.length; j += 1) {
        const a = groups.get(block[i]!)![0]!;
        const b = groups.get(block[j]!)![0]!;
        const score = jaccard(a.an.set, b.an.set);
        if (score >= FUZZY_THRESHOLD && !namesDiffer(a.an, b.an)) {
          const [ra, rb] = [find(block[i]!), find(block[j]!)];
          if (ra !== rb) parent.set(ra > rb ? ra : rb, ra > rb ? rb : ra);
          fuzzy.set(block[i]!, Math.min(fuzzy.get(block[i]!) ?? 1, score));
          fuzzy.set(block[j]!, Math.min(fuzzy.get(block[j]!) ?? 1, score));
        }
      }
    }
  }
  const clusters = new Map<string, string[]>();
  for (const s of sigs) {
    const r = find(s);
    if (!clusters.has(r)) clusters.set(r, []);
    clusters.get(r)!.push(s);
  }
  const out: MatchResult[] = [];
  const unmatched = (m: MatchInput): MatchResult => ({ source: m.source, slug: m.slug, canonicalKey: null, orientation: null, confidence: null, basis: null });
  for (const [root, memberSigs] of clusters) {
    const { groups: split, unplaced } = splitByVenue(memberSigs.flatMap((s) => groups.get(s)!));
    out.push(...unplaced.map(unmatched));
    for (const members of split) {
      if (new Set(members.map((m) => m.source)).size < 2) {
        out.push(...members.map(unmatched));
        continue;
      }
      // A whole cluster keeps the key of its text; a split one's groups also name their first member
      // (earliest close, then source/slug): unique, and fixed while that market is.
      const whole = split.length === 1 && unplaced.length === 0;
      const keyText = whole ? root : `${root}|${members[0]!.source}/${members[0]!.slug}`;
      out.push(...canonicalMembers(`pmc_${createHash('sha256').update(keyText).digest('hex').slice(0, 16)}`, members, fuzzy));
    }
  }
  return out;
}

/** Anchor, orientation and confidence of each member of one canonical event. */
function canonicalMembers(key: string, members: (MatchInput & { an: Analysis })[], fuzzy: Map<string, number>): MatchResult[] {
  // The anchor: a member whose text says what "Yes" means, positively phrased, most liquid.
  // Multi-outcome: prefer the outcome-name set most members share.
  const nameSet = (m: MatchInput) => m.outcomes.map(normName).sort().join('|');
  const agree = (m: MatchInput) => (m.kind === 'multi' ? members.filter((x) => nameSet(x) === nameSet(m)).length : 0);
  const anchor = [...members].sort(
    (a, b) =>
      Number(b.an.polarity === 1) - Number(a.an.polarity === 1) ||
      agree(b) - agree(a) ||
      b.liquidity - a.liquidity ||
      (a.source + a.slug).localeCompare(b.source + b.slug),
  )[0]!;
  return members.map((m) => {
    const sig = signature(m.kind, m.an.set);
    const exact = sig === signature(anchor.kind, anchor.an.set);
    const confidence = exact ? 0.97 : Math.round((fuzzy.get(sig) ?? FUZZY_THRESHOLD) * 0.95 * 100) / 100;
    return {
      source: m.source,
      slug: m.slug,
      canonicalKey: key,
      orientation: orient(anchor, m),
      confidence: m === anchor ? 1 : confidence,
      basis: m === anchor ? 'anchor' : exact ? 'question_text_signature' : 'question_text_overlap',
    };
  });
}
