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

describe('serializer round trip', () => {
  it('names the first place a serialized body differs from the handler payload', async () => {
    const { firstDifference } = await import('../../src/http/plugins/response-check.js');
    expect(firstDifference({ a: [1, { b: 2 }], c: null }, { c: null, a: [1, { b: 2 }] })).toBeNull();
    expect(firstDifference({ a: [1, { b: 2.5 }] }, { a: [1, { b: 2 }] })).toBe('/a/1/b');
    expect(firstDifference({ a: 1, dropped: 'x' }, { a: 1 })).toBe('/dropped');
  });
});

describe('the hook on a Fastify app', () => {
  it('flags a field the schema forgot (which the serializer would drop) and counts the response', async () => {
    const { default: Fastify } = await import('fastify');
    const { installResponseCheck, responseCheckStats } = await import('../../src/http/plugins/response-check.js');
    const app = Fastify();
    await installResponseCheck(app);
    app.get('/complete', { schema: { response: { 200: Type.Object({ a: Type.Integer() }) } } }, async () => ({ a: 1 }));
    app.get('/forgot', { schema: { response: { 200: Type.Object({ a: Type.Integer() }) } } }, async () => ({ a: 1, b: 'lost' }));
    const before = responseCheckStats.validated;
    expect((await app.inject({ url: '/complete' })).statusCode).toBe(200);
    const forgot = await app.inject({ url: '/forgot' });
    expect(forgot.statusCode).toBe(500);
    expect(forgot.json().message).toContain('must NOT have additional properties: b');
    expect(responseCheckStats.validated - before).toBe(2);
    const found = responseCheckStats.violations.splice(0);
    expect(found).toEqual([{ route: 'GET /forgot', status: 200, errors: ['/ must NOT have additional properties: b'] }]);
    await app.close();
  });
});
