import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { AgentTrace } from '../http/schemas.js';
import type { CatalogRoute, RouteCatalog } from './route-catalog.js';
import type { RouteChoice, ToolSpec } from './tool-table.js';

type Json = Record<string, unknown>;

/** Trace arguments every keyed tool accepts; rationaleSummary only where the body carries agentTrace. */
const HEADER_TRACE_FIELDS = ['runId', 'decisionId', 'strategyLabel', 'confidence'] as const;

/** One route a tool may call, with each argument's place in the HTTP request. */
export interface ToolRoute {
  route: CatalogRoute;
  when?: RouteChoice['when'];
  params: Set<string>;
  query: Set<string>;
  body: Set<string>;
  hasBody: boolean;
  /** The body takes `agentTrace`: trace arguments go there (else as X-Service-* headers). */
  traceInBody: boolean;
  /** Per path parameter, values that would reach another route (see RouteCatalog). */
  routeLiterals: Map<string, Set<string>>;
}

export interface BuiltTool {
  definition: Tool;
  /** Needs an API key (its route has a scope). */
  keyed: boolean;
  routes: ToolRoute[];
  /** Trace arguments (runId …) folded into agentTrace or headers. */
  traceArgs: Set<string>;
  /** Answers carry structuredContent (the route has a complete 200/201 object schema). */
  structured: boolean;
  selector?: ToolSpec['selector'];
  /** Route arguments sent with every call, whatever the caller passes. */
  fixed: Record<string, string>;
}

/** TypeBox schemas are JSON Schema plus symbol keys; a JSON round trip leaves the plain schema. */
const plain = (schema: unknown): Json | null => (schema && typeof schema === 'object' ? (JSON.parse(JSON.stringify(schema)) as Json) : null);

function objectPart(schema: unknown): { properties: Record<string, Json>; required: string[] } {
  const s = plain(schema);
  if (!s || s.type !== 'object') return { properties: {}, required: [] };
  return { properties: (s.properties as Record<string, Json> | undefined) ?? {}, required: (s.required as string[] | undefined) ?? [] };
}

/** A response schema fit to be an MCP outputSchema: an object that declares its fields (not an open map). */
function completeObject(schema: unknown): Json | null {
  const s = plain(schema);
  if (!s || s.type !== 'object') return null;
  const properties = s.properties as Json | undefined;
  return properties && Object.keys(properties).length > 0 ? s : null;
}

/** A response's JSON schema, also when the route declares its content types one by one. */
function jsonSchemaOf(response: unknown): unknown {
  const content = (response as { content?: Record<string, { schema?: unknown }> } | undefined)?.content;
  return content ? content['application/json']?.schema : response;
}

function outputSchemaOf(route: CatalogRoute): Json | null {
  const responses = (route.schema.response ?? {}) as Record<string, unknown>;
  const ok = completeObject(jsonSchemaOf(responses['200']));
  const created = completeObject(jsonSchemaOf(responses['201']));
  if (ok && created) return JSON.stringify(ok) === JSON.stringify(created) ? ok : null;
  return ok ?? created;
}

function describe(spec: ToolSpec, route: CatalogRoute, keyed: boolean, idempotencyKey: boolean): string {
  const schema = route.schema as { summary?: string; description?: string };
  const scope = route.config.scope as string | undefined;
  const access = keyed ? (scope === 'any' ? 'Needs an API key.' : `Needs an API key with the "${scope}" scope.`) : 'Keyless.';
  const replay = idempotencyKey ? 'Send a new idempotencyKey per intended action; repeating a key replays the first result.' : '';
  return [schema.summary, schema.description, spec.note, access, replay].filter(Boolean).join(' ');
}

function toolRoute(choice: RouteChoice, route: CatalogRoute, catalog: RouteCatalog): ToolRoute {
  const body = objectPart(route.schema.body);
  return {
    route,
    when: choice.when,
    params: new Set(Object.keys(objectPart(route.schema.params).properties)),
    query: new Set(Object.keys(objectPart(route.schema.querystring).properties)),
    body: new Set(Object.keys(body.properties).filter((name) => name !== 'agentTrace')),
    hasBody: route.schema.body !== undefined,
    traceInBody: 'agentTrace' in body.properties,
    routeLiterals: catalog.literalsInPlaceOfParams(route.method, route.url),
  };
}

/** The tool a table line describes, or null when none of its routes is registered. */
export function buildTool(spec: ToolSpec, catalog: RouteCatalog): BuiltTool | null {
  const found = spec.routes.flatMap((choice) => {
    const route = catalog.get(choice.route);
    return route ? [{ choice, route }] : [];
  });
  if (found.length !== spec.routes.length) return null;
  const main = found.at(-1)!.route;
  const keyed = main.config.scope !== undefined;
  const routes = found.map(({ choice, route }) => toolRoute(choice, route, catalog));

  // Arguments: the union of params, query and body fields; required where every route requires it
  // and has no default (the route fills a default in, as OpenAPI lists such a parameter optional).
  const fixed = spec.fixed ?? {};
  const properties: Record<string, Json> = {};
  const requiredCounts = new Map<string, number>();
  for (const { route } of found) {
    const parts = [objectPart(route.schema.params), objectPart(route.schema.querystring), objectPart(route.schema.body)];
    for (const part of parts) {
      for (const [name, schema] of Object.entries(part.properties)) {
        if (name !== 'agentTrace' && !(name in fixed) && !(name in properties)) properties[name] = schema;
      }
      for (const name of part.required) {
        if (!(name in fixed) && part.properties[name]?.default === undefined) requiredCounts.set(name, (requiredCounts.get(name) ?? 0) + 1);
      }
    }
  }
  if (spec.selector) {
    properties[spec.selector.name] = { type: 'string', enum: spec.selector.values, default: spec.selector.default, description: spec.selector.description };
  }
  const traceArgs = new Set<string>();
  if (keyed) {
    const traceSchemas = (plain(AgentTrace)!.properties ?? {}) as Record<string, Json>;
    const inBody = routes.every((r) => r.traceInBody);
    const names = inBody ? Object.keys(traceSchemas) : [...HEADER_TRACE_FIELDS];
    for (const name of names) {
      traceArgs.add(name);
      if (!(name in properties)) properties[name] = { ...traceSchemas[name], description: `agent trace: ${name} (recorded in your private ledger)` };
    }
  }
  const required = [...requiredCounts].filter(([, n]) => n === found.length).map(([name]) => name);
  const idempotencyKey = required.includes('idempotencyKey');

  const eventType = (main.config.ledger as { eventType?: string } | undefined)?.eventType;
  const readOnly = main.method === 'GET' || eventType === 'read' || eventType === 'quote';
  const outputs = routes.map((r) => outputSchemaOf(r.route));
  const outputSchema = outputs.every((o) => o && JSON.stringify(o) === JSON.stringify(outputs[0])) ? outputs[0]! : null;

  const definition: Tool = {
    name: spec.name,
    title: (main.schema as { summary?: string }).summary,
    description: describe(spec, main, keyed, idempotencyKey),
    inputSchema: { type: 'object', properties, ...(required.length > 0 ? { required } : {}) },
    ...(outputSchema ? { outputSchema: outputSchema as Tool['outputSchema'] } : {}),
    annotations: {
      readOnlyHint: readOnly,
      destructiveHint: false,
      idempotentHint: readOnly || idempotencyKey || spec.naturallyIdempotent === true,
      openWorldHint: false,
    },
  };
  return { definition, keyed, routes, traceArgs, structured: outputSchema !== null, selector: spec.selector, fixed };
}
