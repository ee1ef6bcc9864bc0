import { randomFillSync } from 'node:crypto';

// Random bytes are drawn 4 KB at a time: one getrandom call per ~400 ids instead of one per id.
const POOL = Buffer.allocUnsafe(4096);
let poolAt = POOL.length;
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
const TWO_16 = 0x10000;

/** A UUIDv7: time-ordered, so ids assigned before persistence still sort by creation. */
export function uuidv7(nowMs: number = Date.now()): string {
  if (poolAt + 10 > POOL.length) {
    randomFillSync(POOL);
    poolAt = 0;
  }
  const r = poolAt;
  poolAt += 10;
  // 48-bit big-endian millisecond timestamp: the top 32 bits, then the low 16.
  const high = Math.floor(nowMs / TWO_16);
  const low = nowMs - high * TWO_16;
  return (
    HEX[(high >>> 24) & 0xff]! +
    HEX[(high >>> 16) & 0xff]! +
    HEX[(high >>> 8) & 0xff]! +
    HEX[high & 0xff]! +
    '-' +
    HEX[low >>> 8]! +
    HEX[low & 0xff]! +
    '-' +
    HEX[(POOL[r]! & 0x0f) | 0x70]! +
    HEX[POOL[r + 1]!]! +
    '-' +
    HEX[(POOL[r + 2]! & 0x3f) | 0x80]! +
    HEX[POOL[r + 3]!]! +
    '-' +
    HEX[POOL[r + 4]!]! +
    HEX[POOL[r + 5]!]! +
    HEX[POOL[r + 6]!]! +
    HEX[POOL[r + 7]!]! +
    HEX[POOL[r + 8]!]! +
    HEX[POOL[r + 9]!]!
  );
}
