import { describe, expect, it } from 'vitest';
import { currentOpenApiDocument } from '../../scripts/openapi-document.js';

interface Op {
  parameters?: { name: string; in: string; required?: boolean }[];
  responses: Record<string, { content?: Record<string, { schema?: Record<string, unknown> }> }>;
}

/** An object schema that names no field at all (what OpenObject used to publish for whole responses). */
const isEmptyOpenObject = (s: Record<string, unknown>) =>
  s.type === 'object' && s.additionalProperties === true && Object.keys((s.properties as object | undefined) ?? {}).length === 0;

describe('the published document', async () => {
  const doc = (await currentOpenApiDocument()) as { paths: Record<string, Record<string, Op>> };
  const ops = Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ name: `${method.toUpperCase()} ${path}`, op })));

  it('gives every response of every operation a schema that names its fields', () => {
    const missing = ops.flatMap(({ name, op }) =>
      Object.entries(op.responses).flatMap(([status, r]) => {
        const schema = r.content ? Object.values(r.content)[0]?.schema : undefined;
        if (!schema) return [`${name} ${status}: no schema`];
        return isEmptyOpenObject(schema) ? [`${name} ${status}: open object`] : [];
      }),
    );
    expect(ops.length).toBeGreaterThan(50);
    expect(missing).toEqual([]);
  });

  it('publishes query parameters that have a default as optional', () => {
    const trades = doc.paths['/api/agent/trades']!.get!.parameters!;
    expect(trades.find((p) => p.name === 'limit')?.required).not.toBe(true);
    expect(trades.find((p) => p.name === 'venue')?.required).not.toBe(true);
  });
});
