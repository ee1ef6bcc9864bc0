// The same few instants are formatted over and over (the request's now, a price's as-of time).
const slots = 8;
const cachedMs = new Float64Array(slots).fill(Number.NaN);
const cachedText: string[] = new Array<string>(slots).fill('');

/** `new Date(ms).toISOString()`, remembered for the last few distinct instants. */
export function isoAt(ms: number): string {
  const slot = ms & (slots - 1);
  if (cachedMs[slot] === ms) return cachedText[slot]!;
  const text = new Date(ms).toISOString();
  cachedMs[slot] = ms;
  cachedText[slot] = text;
  return text;
}
