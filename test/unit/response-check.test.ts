import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { defaultedQueryOptional } from '../../src/http/openapi.js';
import { closedSchema, responseErrors } from '../../src/http/plugins/response-check.js';
import { Nullable, OpenObject } from '../../src/http/schemas.js';

const Row = Type.Object({ id: Type.Integer(), price: Type.Number(), note: Nullable(Type.String()), detail: OpenObject('free-form') });

describe('response check (the guard against fields the serializer would drop)', () => {
  it('accepts a payload that matches, free-form maps included', async () => {
    expect(await responseErrors(Row, { id: 1, price: 1.5, note: null, detail: { anything: [1, 2] } })).toEqual([]);
  });

  it('names a field the schema does not declare, at any depth', async () => {
    const Outer = Type.Object({ rows: Type.Array(Row) });
    const errors = await responseErrors(Outer, { rows: [{ id: 1, price: 2, note: 'x', detail: {}, extra: true }] });
    expect(errors.join()).toContain('/rows/0 must NOT have additional properties: extra');
  });

  it('catches a fraction where the schema says integer, and a missing required field', async () => {
    expect((await responseErrors(Row, { id: 1.5, price: 2, note: null, detail: {} })).join()).toContain('/id must be integer');
    expect((await responseErrors(Row, { id: 1, note: null, detail: {} })).join()).toContain("must have required property 'price'");
  });

  it('closes objects without touching the published schema', () => {
    const closed = closedSchema(Row) as { additionalProperties: boolean; properties: { detail: { additionalProperties: boolean } } };
    expect(closed.additionalProperties).toBe(false);
    expect(closed.properties.detail.additionalProperties).toBe(true);
    expect((Row as { additionalProperties?: unknown }).additionalProperties).toBeUndefined();
  });
});

describe('OpenAPI query parameters', () => {
  it('publishes a parameter with a default as optional and keeps the others required', () => {
    const schema = { querystring: Type.Object({ limit: Type.Integer({ default: 20 }), q: Type.String() }) };
    const published = defaultedQueryOptional(schema) as { querystring: { required: string[] } };
    expect(published.querystring.required).toEqual(['q']);
    expect(schema.querystring.required).toEqual(['limit', 'q']);
  });
});
