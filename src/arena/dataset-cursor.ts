/**
 * Opaque dataset cursors: base64url JSON of where the last page ended — `d` the last settled
 * decision's place in resolution order (a house agent's open list: its id), `o` the last
 * opportunity's place in record order. Version 1 cursors counted decisions by id, version 2
 * opportunities by id; either is refused (a client starts over), since an id says nothing of
 * what committed after it — except a version 2 cursor that never passed an opportunity (`o` 0),
 * whose `d` means what it means now.
 */
export interface DatasetCursor {
  d: number;
  o: number;
}

const VERSION = 3;

export function encodeCursor(c: DatasetCursor): string {
  return Buffer.from(JSON.stringify({ v: VERSION, d: c.d, o: c.o })).toString('base64url');
}

/** Null for anything this service did not issue. */
export function decodeCursor(text: string): DatasetCursor | null {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(text)) return null;
  try {
    const value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as Record<string, unknown>;
    const ok = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) >= 0;
    const current = value?.v === VERSION || (value?.v === 2 && value.o === 0);
    if (!current || !ok(value.d) || !ok(value.o)) return null;
    return { d: value.d, o: value.o };
  } catch {
    return null;
  }
}
