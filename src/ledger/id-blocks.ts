/**
 * Integer ledger ids known before persistence (reference B8: `id` is an integer and the
 * `X-Service-Ledger-Event-Id` header carries it). Ids come in blocks reserved from one database
 * sequence (one `nextval` per block), so processes never collide; the next block is fetched
 * while the current one still has ids left.
 */
export const LEDGER_ID_BLOCK = 1000;

export class LedgerIdBlocks {
  private blocks: { next: number; end: number }[] = [];
  private fetching: Promise<void> | null = null;

  constructor(
    private readonly reserveBlock: () => Promise<number>,
    private readonly blockSize = LEDGER_ID_BLOCK,
  ) {}

  /** Reserves a block unless one is on its way; never rejects (a failed fetch is retried on the next take). */
  refill(): Promise<void> {
    this.fetching ??= this.reserveBlock()
      .then((start) => {
        this.blocks.push({ next: start, end: start + this.blockSize });
      })
      .catch(() => undefined)
      .finally(() => {
        this.fetching = null;
      });
    return this.fetching;
  }

  /** The next id, or null when no reserved id is left (the caller then omits the header). */
  take(): number | null {
    let cur = this.blocks[0];
    while (cur && cur.next >= cur.end) {
      this.blocks.shift();
      cur = this.blocks[0];
    }
    const left = cur ? cur.end - cur.next + (this.blocks.length - 1) * this.blockSize : 0;
    if (left <= this.blockSize / 2) void this.refill();
    if (!cur) return null;
    const id = cur.next;
    cur.next += 1;
    return id;
  }
}
