/** The most a live source's answer may be (the largest, a PM venue list, is about 1 MB). */
export const MAX_SOURCE_ANSWER_BYTES = 16 * 1024 * 1024;

export interface JsonAnswer {
  body?: ReadableStream<Uint8Array> | null;
  json(): Promise<unknown>;
}

/**
 * Reads an answer's JSON, giving up past `maxBytes` of (decoded) body: a 150 MB answer or a
 * small gzip that expands to 300 MB was read whole. Answers without a stream (test doubles) are
 * read as they are.
 */
export async function readCappedJson(answer: JsonAnswer, maxBytes = MAX_SOURCE_ANSWER_BYTES): Promise<unknown> {
  if (!answer.body) return answer.json();
  const reader = answer.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw new Error(`answer larger than ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}
