/** SQLSTATE of a driver error, looking through wrappers (Drizzle puts the driver error in `cause`). */
export function sqlStateOf(error: unknown): string | null {
  for (let e = error, depth = 0; e && typeof e === 'object' && depth < 4; e = (e as { cause?: unknown }).cause, depth += 1) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return null;
}
