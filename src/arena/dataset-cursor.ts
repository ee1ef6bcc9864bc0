/** Opaque dataset cursors: base64url JSON of the last decision and opportunity ids served. */
export interface DatasetCursor {
  d: number;
  o: number;
}

export function encodeCursor(c: DatasetCursor): string {
  return Buffer.from(JSON.stringify({ v: 1, d: c.d, o: c.o })).toString('base64url');
}

/** Null for anything this service did not issue. */
export function decodeCursor(text: string): DatasetCursor | null {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(text)) return null;
  try {
    const value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as Record<string, unknown>;
    const ok = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) >= 0;
    if (value?.v !== 1 || !ok(value.d) || !ok(value.o)) return null;
    return { d: value.d, o: value.o };
  } catch {
    return null;
  }
}
