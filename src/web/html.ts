/**
 * A tiny tagged-template layer: every interpolated value is HTML-escaped unless it is already
 * `Html` (built by this tag or `raw`). Arrays are joined; null, undefined and false render nothing.
 */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

function render(value: unknown): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1]!;
  return new Html(out);
}

/** Trusted markup (never user or venue text). */
export const raw = (text: string): Html => new Html(text);

/**
 * JSON safe inside a `<script type="application/json">` element: `<` is escaped so no value can
 * close the element, and U+2028/9 so the text is valid everywhere.
 */
export function safeJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

export function jsonScript(id: string, value: unknown): Html {
  return new Html(`<script type="application/json" id="${escapeHtml(id)}">${safeJson(value)}</script>`);
}
