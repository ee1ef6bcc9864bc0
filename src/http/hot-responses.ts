import { createHash, randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Hot reads serialize their body once per data version and answer repeats with the same bytes;
 * clients that send the ETag back get 304 without a body.
 */
export class VersionedCache<V> {
  private readonly entries = new Map<string, { version: unknown; value: V }>();
  constructor(private readonly maxEntries = 5000) {}

  /** The value cached for `key` at exactly `version`, else built (and kept) now. */
  get(key: string, version: unknown, build: () => V): V {
    const hit = this.entries.get(key);
    if (hit && hit.version === version) return hit.value;
    const value = build();
    if (!hit && this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { version, value });
    return value;
  }
}

/** A strong ETag over exact bytes (computed once, when the body is cached). */
export function strongEtag(body: string | Buffer): string {
  return `"${createHash('sha1').update(body).digest('base64url').slice(0, 22)}"`;
}

/** Versions count from 0 in each process: the boot id keeps a tag from matching another process's data. */
const BOOT = randomBytes(4).toString('hex');

/** A weak ETag for a body whose data is fixed by `parts` while per-request fields (observedAt, freshness) vary. */
export function weakEtag(...parts: (string | number)[]): string {
  return `W/"${BOOT}-${parts.join('-')}"`;
}

/**
 * Sets `ETag`; when the request's If-None-Match names it (weak comparison, RFC 9110 13.1.2),
 * answers 304 without a body and returns true: the handler then returns `reply`.
 */
export function answerNotModified(request: FastifyRequest, reply: FastifyReply, etag: string): boolean {
  reply.header('ETag', etag);
  const header = request.headers['if-none-match'];
  if (typeof header !== 'string' || !matches(header, etag)) return false;
  reply.code(304).send();
  return true;
}

/**
 * Sends pre-serialized JSON, bypassing the route's serializer (the text must have the schema's
 * shape). A Buffer goes out as it is: a cached body is encoded once, not on every send.
 * Returns the reply typed `never`, so a handler with a typed response can return it.
 */
export function sendJsonText(reply: FastifyReply, text: string | Buffer): never {
  return reply.type('application/json; charset=utf-8').send(text) as never;
}

/** `head` (a cached JSON text without its closing brace, as bytes) followed by `tail`. */
export function jsonBytes(head: Buffer, tail: string): Buffer {
  const tailBytes = Buffer.byteLength(tail);
  const out = Buffer.allocUnsafe(head.length + tailBytes);
  head.copy(out, 0);
  out.write(tail, head.length, tailBytes, 'utf8');
  return out;
}

const opaque = (tag: string) => (tag.startsWith('W/') ? tag.slice(2) : tag);

function matches(header: string, etag: string): boolean {
  if (header.trim() === '*') return true;
  const wanted = opaque(etag);
  return header.split(',').some((t) => opaque(t.trim()) === wanted);
}
