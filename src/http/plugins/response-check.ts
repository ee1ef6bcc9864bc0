import type { Ajv, ValidateFunction } from 'ajv';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { ErrorBody } from '../schemas.js';

/**
 * Test-only guard (AppDeps.checkResponses): every JSON payload a handler returns is validated against the
 * route's published response schema for its status code BEFORE Fastify serializes it. The compiled
 * serializer silently drops fields a schema does not name, so here an unknown field is an error (the
 * schema is incomplete), as is a status without a schema. Violations are collected for the test run
 * (test/support/response-check-setup.ts fails the test) and also turn the response into a 500.
 */

export interface ResponseViolation {
  route: string;
  status: number;
  errors: string[];
}

export const responseCheckStats = { validated: 0, violations: [] as ResponseViolation[] };

// Loaded only when the check is on (ajv comes with Fastify; production never needs it here).
let ajv: Ajv | undefined;
async function loadAjv(): Promise<Ajv> {
  const { Ajv } = await import('ajv');
  const addFormats = (await import('ajv-formats')).default as unknown as (a: Ajv) => Ajv;
  return addFormats(new Ajv({ allErrors: true, strict: false, validateFormats: true }));
}

/** A copy of a schema where every object without an explicit `additionalProperties` is closed. */
export function closedSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closedSchema);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'properties' || key === 'patternProperties' || key === '$defs' || key === 'definitions') {
      out[key] = Object.fromEntries(Object.entries(value as object).map(([k, v]) => [k, closedSchema(v)]));
    } else if (key === 'example' || key === 'examples' || key === 'default' || key === 'const' || key === 'enum') {
      out[key] = value;
    } else out[key] = closedSchema(value);
  }
  const isObject = out.type === 'object' || (out.properties !== undefined && out.type === undefined);
  if (isObject && out.additionalProperties === undefined && out.patternProperties === undefined) out.additionalProperties = false;
  return out;
}

const compiled = new WeakMap<object, ValidateFunction>();

function validatorFor(schema: object): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv!.compile(closedSchema(schema) as object);
    compiled.set(schema, validate);
  }
  return validate;
}

function responseSchemaFor(request: FastifyRequest, status: number): object | undefined {
  const responses = request.routeOptions.schema?.response as Record<string, unknown> | undefined;
  if (!responses) return undefined;
  const entry = responses[String(status)] ?? responses[`${String(status)[0]}xx`] ?? responses.default;
  if (entry === undefined) return undefined;
  const content = (entry as { content?: Record<string, { schema: object }> }).content;
  return content ? (content['application/json']?.schema ?? Object.values(content)[0]?.schema) : (entry as object);
}

/** What is wrong with `payload` under the closed form of `schema` ([] = it matches). */
export async function responseErrors(schema: object, payload: unknown): Promise<string[]> {
  ajv ??= await loadAjv();
  return errorsOf(schema, payload);
}

function errorsOf(schema: object, payload: unknown): string[] {
  const validate = validatorFor(schema);
  if (validate(payload)) return [];
  return (validate.errors ?? []).map((e) => {
    const extra = e.params && 'additionalProperty' in e.params ? `: ${String(e.params.additionalProperty)}` : '';
    return `${e.instancePath || '/'} ${e.message}${extra}`;
  });
}

function check(request: FastifyRequest, status: number, payload: unknown): string[] {
  // The not-found handler has no route; its body is still the error envelope.
  if (request.routeOptions.url === undefined) return errorsOf(ErrorBody, payload);
  const schema = responseSchemaFor(request, status);
  if (!schema) return [`no response schema for status ${status}`];
  return errorsOf(schema, payload);
}

/** The JSON path of the first place two JSON values differ, or null when they are equal. */
export function firstDifference(a: unknown, b: unknown, path = ''): string | null {
  if (a === b) return null;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return path || '/';
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const key of keys) {
    const found = firstDifference((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], `${path}/${key}`);
    if (found !== null) return found;
  }
  return null;
}

/** A sent body as text, decompressed when the reply names a content coding. */
function decoded(payload: string | Buffer, coding: unknown): string {
  if (coding === 'gzip') return gunzipSync(payload).toString();
  if (coding === 'br') return brotliDecompressSync(payload).toString();
  return payload.toString();
}

const skipped = (request: FastifyRequest) => request.routeOptions.schema?.hide === true || request.routeOptions.config?.unpublished === true;

/** Headers whose presence the OpenAPI document must declare for the route and status that sent them. */
const DECLARED_HEADERS = ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'retry-after', 'x-service-ledger-event-id', 'x-service-ledger-status', 'etag'];

type PublishedResponses = Record<string, { headers?: Record<string, unknown> }>;
type PublishedPaths = Record<string, Record<string, { responses?: PublishedResponses }>>;

/** `/api/x/:id` as the OpenAPI document writes it (`/api/x/{id}`). */
const openApiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/** What the published document does not declare about a sent answer: its status, or a header it carries. */
export function undeclared(paths: PublishedPaths, method: string, url: string, status: number, sentHeaders: string[]): string[] {
  const operation = paths[openApiPath(url)]?.[method.toLowerCase()];
  if (!operation) return [];
  const response = operation.responses?.[String(status)];
  if (!response) return [`status ${status} is not in the published document`];
  const declared = new Set(Object.keys(response.headers ?? {}).map((h) => h.toLowerCase()));
  return sentHeaders.filter((h) => DECLARED_HEADERS.includes(h) && !declared.has(h)).map((h) => `header ${h} is not declared for status ${status}`);
}

export async function installResponseCheck(app: FastifyInstance): Promise<void> {
  ajv ??= await loadAjv();
  // Statuses and headers against the document itself (built on first use: routes are all registered by then).
  let paths: PublishedPaths | undefined;
  app.addHook('onResponse', (request, reply, done) => {
    if (skipped(request) || request.routeOptions.url === undefined || request.method === 'HEAD') return done();
    paths ??= (app as unknown as { swagger(): { paths: PublishedPaths } }).swagger().paths;
    const errors = undeclared(paths, request.method, request.routeOptions.url, reply.statusCode, Object.keys(reply.getHeaders()));
    if (errors.length > 0) responseCheckStats.violations.push({ route: `${request.method} ${request.routeOptions.url}`, status: reply.statusCode, errors });
    done();
  });
  const seen = new WeakSet<FastifyRequest>();
  const handed = new WeakMap<FastifyRequest, unknown>();
  const record = (request: FastifyRequest, status: number, payload: unknown): string[] => {
    seen.add(request);
    const route = `${request.method} ${request.routeOptions.url ?? '(no route)'}`;
    const errors = check(request, status, payload);
    responseCheckStats.validated += 1;
    if (errors.length > 0) responseCheckStats.violations.push({ route, status, errors });
    return errors;
  };

  // Objects: checked before the compiled serializer can drop what the schema does not name.
  app.addHook('preSerialization', async (request, reply, payload) => {
    if (skipped(request)) return payload;
    const status = reply.statusCode;
    const plain = JSON.parse(JSON.stringify(payload)) as unknown;
    const errors = record(request, status, plain);
    if (errors.length > 0) {
      reply.status(500);
      return { error: 'response_schema_violation', message: `${status}: ${errors.join('; ')}` };
    }
    handed.set(request, plain);
    return payload;
  });

  app.addHook('onSend', async (request, reply, payload) => {
    if (skipped(request)) return payload;
    const type = String(reply.getHeader('content-type') ?? '');
    const text = typeof payload === 'string' || Buffer.isBuffer(payload) ? decoded(payload, reply.getHeader('content-encoding')) : null;
    if (!type.includes('application/json') || text === null) return payload;
    const before = handed.get(request);
    if (before !== undefined) {
      // What the serializer wrote must be what the handler returned (nothing dropped, truncated or re-shaped).
      const where = firstDifference(before, JSON.parse(text));
      if (where !== null) {
        const route = `${request.method} ${request.routeOptions.url ?? '(no route)'}`;
        responseCheckStats.violations.push({ route, status: reply.statusCode, errors: [`serialized body differs from the handler's at ${where}`] });
      }
      return payload;
    }
    // Pre-serialized JSON (cached public bodies, Buffers) never reaches preSerialization.
    if (!seen.has(request)) record(request, reply.statusCode, JSON.parse(text));
    return payload;
  });
}
