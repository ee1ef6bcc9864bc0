/**
 * Opaque dataset cursors: base64url JSON of where the last page ended — `d` the last settled
 * decision's place in resolution order (a house agent's open list: its id), `o` the last
 * opportunity id. Version 1 cursors counted decisions by id; they are refused (a client starts
 * over), since an id says nothing of what settled after it.
 */
export interface DatasetCursor {
  d: number;
  o: number;
}

const VERSION = 2;

export function encodeCursor(c: DatasetCursor): string {
  return Buffer.from(JSON.stringify({ v: VERSION, d: c.d, o: c.o })).toString('base64url');
}

/** Null for anything this service did not issue. */
export function decodeCursor(text: string): DatasetCursor | null {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(text)) return null;
  try {
    const value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as Record<string, unknown>;
    const ok = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) >= 0;
    if (value?.v !== VERSION || !ok(value.d) || !ok(value.o)) return null;
    return { d: value.d, o: value.o };
  } catch {
    return null;
  }
}
