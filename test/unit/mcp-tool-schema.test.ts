import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { AgentTrace, OpenObject, StrictBody } from '../../src/http/schemas.js';
import { RouteCatalog, type CatalogRoute } from '../../src/mcp/route-catalog.js';
import { buildTool } from '../../src/mcp/tool-schema.js';

const Result = Type.Object({ id: Type.Integer(), status: Type.String() });

function catalogOf(...routes: CatalogRoute[]): RouteCatalog {
  const catalog = new RouteCatalog();
  for (const r of routes) catalog.add(r);
  return catalog;
}
const write = (response: Record<string, unknown>): CatalogRoute => ({
  method: 'POST',
  url: '/api/agent/thing/:id/do',
  config: { scope: 'trade:spot', ledger: { eventType: 'write' } },
  schema: {
    summary: 'Do a thing',
    params: Type.Object({ id: Type.Integer() }),
    body: StrictBody({ amount: Type.Number(), idempotencyKey: Type.String(), agentTrace: Type.Optional(AgentTrace) }),
    response,
  },
});
const spec = { name: 'thing_do', routes: [{ route: 'POST /api/agent/thing/:id/do' }] };

describe('MCP tool derived from a route', () => {
  it('merges params and body, flattens agentTrace into trace arguments, requires what the route requires', () => {
    const tool = buildTool(spec, catalogOf(write({ 200: Result })))!;
    expect(Object.keys(tool.definition.inputSchema.properties!).sort()).toEqual(
      ['amount', 'confidence', 'decisionId', 'id', 'idempotencyKey', 'rationaleSummary', 'runId', 'strategyLabel'],
    );
    expect(tool.definition.inputSchema.required!.sort()).toEqual(['amount', 'id', 'idempotencyKey']);
    expect(tool.definition.annotations).toEqual({ readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false });
    expect(tool.definition.description).toContain('"trade:spot" scope');
  });

  it('takes a complete 200/201 object schema as outputSchema, never an open object or two different ones', () => {
    expect(buildTool(spec, catalogOf(write({ 200: Result })))!.definition.outputSchema).toMatchObject({ type: 'object', properties: { id: {}, status: {} } });
    expect(buildTool(spec, catalogOf(write({ 201: Result })))!.structured).toBe(true);
    expect(buildTool(spec, catalogOf(write({ 200: OpenObject('anything') })))!.definition.outputSchema).toBeUndefined();
    expect(buildTool(spec, catalogOf(write({ 200: Type.Array(Result) })))!.structured).toBe(false);
    expect(buildTool(spec, catalogOf(write({ 200: Result, 201: Type.Object({ other: Type.String() }) })))!.definition.outputSchema).toBeUndefined();
  });

  it('skips a tool whose route is not registered (e.g. market_news before the news endpoint exists)', () => {
    expect(buildTool({ name: 'market_news', routes: [{ route: 'GET /api/agent/news' }] }, catalogOf(write({ 200: Result })))).toBeNull();
  });
});

describe('route literals in place of a path parameter', () => {
  it('names the sibling routes a parameter value would reach instead, for the same method only', () => {
    const route = (method: string, url: string): CatalogRoute => ({ method, url, config: {}, schema: {} });
    const catalog = catalogOf(
      route('GET', '/api/arena/:handle'),
      route('GET', '/api/arena/decisions'),
      route('GET', '/api/arena/agents/:handle/scorecard'),
      route('POST', '/api/arena/reset'),
      route('GET', '/api/arena/decisions/:uuid'),
    );
    expect(catalog.literalsInPlaceOfParams('GET', '/api/arena/:handle')).toEqual(new Map([['handle', new Set(['decisions'])]]));
    expect(catalog.literalsInPlaceOfParams('GET', '/api/arena/decisions/:uuid')).toEqual(new Map());
  });
});
