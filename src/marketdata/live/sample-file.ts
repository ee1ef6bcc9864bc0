/**
 * Live mode keeps its samples across restarts in DATA_DIR/live/samples.ndjson, in the
 * tape format: each poll appends one line; at start (and every few hours) the file is
 * rewritten from the thinned samples so it stays about as small as the memory it mirrors.
 */
import { appendFile, mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { QuoteInput, SampleMarket, SnapshotInput } from './sample-market.js';
import { forEachSnapshot, formatHeader, formatSnapshot } from '../replay/tape.js';

export class LiveSampleFile {
  constructor(readonly path: string) {}

  /** Feeds every stored snapshot to the market; returns how many. */
  async restoreInto(market: SampleMarket, say: (line: string) => void = () => undefined): Promise<number> {
    const { snapshots } = await forEachSnapshot(this.path, (s) => market.ingest(s), {
      allowMissing: true,
      onProgress: (read, total) => say(`  market: restoring live samples… ${Math.round((100 * read) / total)} %`),
    });
    return snapshots;
  }

  async append(snapshot: SnapshotInput): Promise<void> {
    await mkdir(dirname(this.path), { recursive: true });
    await appendFile(this.path, `${formatSnapshot(snapshot)}\n`);
  }

  /** Rewrites the file from the market's (thinned) samples and latest figures, atomically. */
  async compact(market: SampleMarket, nowMs: number): Promise<void> {
    const byTime = new Map<number, Record<string, QuoteInput>>();
    for (const [coinId, samples] of market.allSamples()) {
      for (const s of samples) {
        let line = byTime.get(s.t);
        if (!line) byTime.set(s.t, (line = {}));
        line[coinId] = { priceUsd: s.price, volume24hUsd: s.volume24hUsd };
      }
    }
    // The latest sample of each coin carries its full figures (changes, market cap).
    for (const coin of market.coins()) {
      const q = market.quote(coin.coinId);
      const line = q && byTime.get(Math.floor(q.asOfMs / 1000));
      if (q && line) line[coin.coinId] = { ...q };
    }
    const times = [...byTime.keys()].sort((a, b) => a - b);
    const lines = [formatHeader({ source: market.source, recordedAt: new Date(nowMs).toISOString(), startMs: (times[0] ?? 0) * 1000, endMs: (times.at(-1) ?? 0) * 1000, coins: market.coins().length })];
    times.forEach((t, k) => {
      const last = k === times.length - 1;
      lines.push(formatSnapshot({ tMs: t * 1000, quotes: byTime.get(t)!, fearGreed: last ? market.fearGreed() : null, fiat: last ? market.observedFiat() : null }));
    });
    await mkdir(dirname(this.path), { recursive: true });
    const tmp = `${this.path}.tmp`;
    await writeFile(tmp, `${lines.join('\n')}\n`);
    await rename(tmp, this.path);
  }
}
