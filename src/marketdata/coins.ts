import { readFileSync } from 'node:fs';
import { CASH_COIN_ID } from '../domain/money.js';
import { projectPath } from '../util/project-files.js';

/** One row of assets/coins.json: a real asset whose old snapshot seeds the simulated market. */
export interface Coin {
  coinId: string;
  slug: string;
  symbol: string;
  name: string;
  rank: number;
  categories: string[];
  priceUsd: number;
  marketCapUsd: number;
  volume24hUsd: number;
  circulatingSupply: number;
}


export const DEFAULT_COINS_PATH = projectPath('assets', 'coins.json');

/** Every problem found in the file, reported together so one edit fixes them all. */
export class CoinsFileError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid coins file: ${problems.slice(0, 10).join('; ')}${problems.length > 10 ? ` (+${problems.length - 10} more)` : ''}`);
    this.name = 'CoinsFileError';
  }
}

type Row = Record<string, unknown>;

function checkString(row: Row, key: keyof Coin, where: string, problems: string[]): string {
  const value = row[key];
  if (typeof value !== 'string' || value.trim() === '') {
    problems.push(`${where}.${key} must be a non-empty string`);
    return '';
  }
  return value;
}

function checkNumber(row: Row, key: keyof Coin, where: string, problems: string[], positive: boolean): number {
  const value = row[key];
  const ok = typeof value === 'number' && Number.isFinite(value) && (positive ? value > 0 : value >= 0);
  if (!ok) {
    problems.push(`${where}.${key} must be a finite ${positive ? 'positive' : 'non-negative'} number`);
    return 0;
  }
  return value;
}

function checkRow(raw: unknown, index: number, problems: string[]): Coin | null {
  const where = `[${index}]`;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    problems.push(`${where} must be an object`);
    return null;
  }
  const row = raw as Row;
  const before = problems.length;
  const coinId = checkString(row, 'coinId', where, problems);
  if (coinId !== '' && !/^\d+$/.test(coinId)) problems.push(`${where}.coinId must be digits`);
  const rank = row.rank;
  if (typeof rank !== 'number' || !Number.isInteger(rank) || rank < 1) {
    problems.push(`${where}.rank must be a positive integer`);
  }
  const categories = row.categories;
  if (!Array.isArray(categories) || !categories.every((c) => typeof c === 'string')) {
    problems.push(`${where}.categories must be an array of strings`);
  }
  const coin: Coin = {
    coinId,
    slug: checkString(row, 'slug', where, problems),
    symbol: checkString(row, 'symbol', where, problems),
    name: checkString(row, 'name', where, problems),
    rank: rank as number,
    categories: Array.isArray(categories) ? [...(categories as string[])] : [],
    priceUsd: checkNumber(row, 'priceUsd', where, problems, true),
    marketCapUsd: checkNumber(row, 'marketCapUsd', where, problems, false),
    volume24hUsd: checkNumber(row, 'volume24hUsd', where, problems, false),
    circulatingSupply: checkNumber(row, 'circulatingSupply', where, problems, false),
  };
  return problems.length === before ? coin : null;
}

function checkUnique(coins: Coin[], key: 'coinId' | 'slug', problems: string[]): void {
  const seen = new Set<string>();
  for (const coin of coins) {
    if (seen.has(coin[key])) problems.push(`duplicate ${key} ${coin[key]}`);
    seen.add(coin[key]);
  }
}

/** Validates parsed JSON; throws CoinsFileError listing every problem. Sorted by rank. */
export function parseCoins(json: unknown): Coin[] {
  if (!Array.isArray(json)) throw new CoinsFileError(['top level must be an array']);
  const problems: string[] = [];
  const coins = json.map((raw, i) => checkRow(raw, i, problems)).filter((c): c is Coin => c !== null);
  checkUnique(coins, 'coinId', problems);
  checkUnique(coins, 'slug', problems);
  if (coins.length > 0 && !coins.some((c) => c.coinId === CASH_COIN_ID)) {
    problems.push(`cash coin ${CASH_COIN_ID} (USDT) is missing`);
  }
  if (problems.length > 0) throw new CoinsFileError(problems);
  return coins.sort((a, b) => a.rank - b.rank);
}

/** Reads and validates the coin universe (default: assets/coins.json). */
export function loadCoins(path: string = DEFAULT_COINS_PATH): Coin[] {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new CoinsFileError([`cannot read ${path}: ${(err as Error).message}`]);
  }
  return parseCoins(json);
}
