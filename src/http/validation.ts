import { Ajv, type AnySchema, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import type { FastifySchema, FastifySchemaCompiler } from 'fastify';
import { nestedDeeperThan } from '../util/json-depth.js';

/**
 * Request validation with two rules applied to every route's request schema, so no route can
 * forget them (issue 12):
 * - strings: no C0 control characters (nor DEL); free text (`'x-free-text': true`, see
 *   `FreeText` in schemas.ts) may keep TAB, LF and CR. Values the schema leaves open
 *   (`Type.Unknown()`, open objects) are checked deeply, keys included.
 * - numbers: finite only; integers are safe integers (±2^53 − 1) unless the route is narrower.
 * JSON bodies are never coerced (`quantity: true` stays a boolean and fails); query strings and
 * path parameters are coerced from text, as they can only be text.
 */

// Control characters, and lone UTF-16 surrogates (not storable text; PostgreSQL jsonb refuses them).
const LONE_SURROGATE = '[\\ud800-\\udbff](?![\\udc00-\\udfff])|(?<![\\ud800-\\udbff])[\\udc00-\\udfff]';
const LINE_CONTROLS = new RegExp(`[\\u0000-\\u001f\\u007f]|${LONE_SURROGATE}`);
const FREE_TEXT_CONTROLS = new RegExp(`[\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f]|${LONE_SURROGATE}`);
export const CONTROL_MESSAGE = 'must not contain control characters or invalid Unicode';

export const NO_CONTROLS = 'x-no-controls';
export const NO_CONTROLS_DEEP = 'x-no-controls-deep';
export const FREE_TEXT = 'x-free-text';
const NO_CONTROL_KEYS = 'x-no-control-keys';
const FINITE = 'x-finite';

/** How deep an open JSON value a request may carry (agentTrace, provenance fields) nests. */
const MAX_VALUE_DEPTH = 32;

/** The JSON-pointer path to the first string (or object key) inside `value` with a control character, or null. */
export function controlCharacterPath(value: unknown, depth = 0): string | null {
  if (typeof value === 'string') return FREE_TEXT_CONTROLS.test(value) ? '' : null;
  if (depth > MAX_VALUE_DEPTH || value === null || typeof value !== 'object') return null;
  const entries: [string, unknown][] = Array.isArray(value) ? value.map((v, i) => [String(i), v]) : Object.entries(value);
  for (const [k, v] of entries) {
    if (LINE_CONTROLS.test(k)) return '';
    const inner = controlCharacterPath(v, depth + 1);
    if (inner !== null) return `/${k}${inner}`;
  }
  return null;
}

/** Text a request may not carry outside free text: control characters or lone surrogates. */
export function hasControlCharacters(text: string): boolean {
  return LINE_CONTROLS.test(text);
}

function keywordError(keyword: string, message: string, instancePath?: string): Partial<ErrorObject> {
  return { keyword, message, params: {}, ...(instancePath !== undefined ? { instancePath } : {}) };
}

type Schema = Record<string, unknown>;

const typesOf = (node: Schema): string[] =>
  Array.isArray(node.type) ? (node.type as string[]) : typeof node.type === 'string' ? [node.type] : [];

const SUBSCHEMA_LISTS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const;
const SUBSCHEMA_ONE = ['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'propertyNames'] as const;
const SUBSCHEMA_MAPS = ['properties', 'patternProperties'] as const;

/** A copy of a request schema with the string and number rules added to every node. */
export function hardenSchema(input: unknown): unknown {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return input;
  const node: Schema = { ...(input as Schema) };
  const types = typesOf(node);
  if (types.includes('string') && node[NO_CONTROLS] === undefined) node[NO_CONTROLS] = node[FREE_TEXT] === true ? 'free' : 'line';
  if (types.includes('integer')) {
    if (node.maximum === undefined && node.exclusiveMaximum === undefined) node.maximum = Number.MAX_SAFE_INTEGER;
    if (node.minimum === undefined && node.exclusiveMinimum === undefined) node.minimum = -Number.MAX_SAFE_INTEGER;
  }
  if (types.includes('number') || types.includes('integer')) node[FINITE] = true;
  if (types.includes('object')) node[NO_CONTROL_KEYS] = true; // record keys are caller strings too
  const composite = SUBSCHEMA_LISTS.some((k) => k in node) || 'enum' in node || 'const' in node || '$ref' in node;
  if (types.length === 0 && !composite) node[NO_CONTROLS_DEEP] = true; // an open value: check everything in it
  if (types.includes('object') && node.additionalProperties !== false && typeof node.additionalProperties !== 'object') {
    node[NO_CONTROLS_DEEP] = true;
  }
  for (const k of SUBSCHEMA_LISTS) if (Array.isArray(node[k])) node[k] = (node[k] as unknown[]).map(hardenSchema);
  for (const k of SUBSCHEMA_ONE) if (node[k] && typeof node[k] === 'object') node[k] = hardenSchema(node[k]);
  for (const k of SUBSCHEMA_MAPS) {
    const map = node[k] as Record<string, unknown> | undefined;
    if (map && typeof map === 'object') node[k] = Object.fromEntries(Object.entries(map).map(([p, s]) => [p, hardenSchema(s)]));
  }
  return node;
}

const rfc3339DateTime = (fullFormats['date-time'] as { validate: (s: string) => boolean }).validate;
const FIRST_INSTANT_MS = Date.parse('0001-01-01T00:00:00Z');
const LAST_INSTANT_MS = Date.parse('9999-12-31T23:59:59.999Z');

/**
 * An RFC 3339 date-time whose instant lies in years 1..9999 UTC: the format alone lets through
 * year 0000, offsets that carry an instant past either end (0001-01-01T00:00+14:00) and leap
 * seconds JavaScript cannot parse, which reached the database (or `toISOString`) as a 500.
 */
export function isStorableDateTime(text: string): boolean {
  if (!rfc3339DateTime(text)) return false;
  const ms = Date.parse(text);
  return Number.isFinite(ms) && ms >= FIRST_INSTANT_MS && ms <= LAST_INSTANT_MS;
}

function newAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({
    coerceTypes: coerce ? 'array' : false,
    useDefaults: true,
    removeAdditional: false,
    allErrors: false, // one error, and no DoS by error lists
    addUsedSchema: false,
    // Ajv's strictNumbers gates number keywords on isFinite, so a coerced "Infinity" skipped
    // `maximum` altogether; plain typing plus our own finite check refuses it instead.
    strictNumbers: false,
  });
  (addFormatsModule as unknown as (a: Ajv) => Ajv)(ajv);
  ajv.addFormat('date-time', { type: 'string', validate: isStorableDateTime });
  ajv.addKeyword({ keyword: FREE_TEXT, schemaType: 'boolean' });
  ajv.addKeyword({
    keyword: NO_CONTROLS,
    type: 'string',
    schemaType: 'string',
    errors: true,
    validate: function check(kind: string, data: string) {
      const bad = (kind === 'free' ? FREE_TEXT_CONTROLS : LINE_CONTROLS).test(data);
      if (bad) (check as unknown as { errors: unknown[] }).errors = [keywordError(NO_CONTROLS, CONTROL_MESSAGE)];
      return !bad;
    },
  });
  ajv.addKeyword({
    keyword: NO_CONTROLS_DEEP,
    schemaType: 'boolean',
    errors: true,
    validate: function check(_on: boolean, data: unknown, _parent?: unknown, where?: { instancePath: string }) {
      // deeper values overflowed the stack of the idempotency hash (a 500) and went unchecked below 32 levels
      if (nestedDeeperThan(data, MAX_VALUE_DEPTH)) {
        (check as unknown as { errors: unknown[] }).errors = [keywordError(NO_CONTROLS_DEEP, `must not nest more than ${MAX_VALUE_DEPTH} levels deep`, where?.instancePath ?? '')];
        return false;
      }
      const path = controlCharacterPath(data);
      if (path === null) return true;
      const instancePath = `${where?.instancePath ?? ''}${path}`;
      (check as unknown as { errors: unknown[] }).errors = [keywordError(NO_CONTROLS_DEEP, CONTROL_MESSAGE, instancePath)];
      return false;
    },
  });
  ajv.addKeyword({
    keyword: NO_CONTROL_KEYS,
    type: 'object',
    schemaType: 'boolean',
    errors: true,
    validate: function check(_on: boolean, data: Record<string, unknown>, _parent?: unknown, where?: { instancePath: string }) {
      const bad = Object.keys(data).find((k) => LINE_CONTROLS.test(k));
      if (bad === undefined) return true;
      (check as unknown as { errors: unknown[] }).errors = [keywordError(NO_CONTROL_KEYS, `has a field name that ${CONTROL_MESSAGE}`, where?.instancePath ?? '')];
      return false;
    },
  });
  ajv.addKeyword({
    keyword: FINITE,
    type: 'number',
    schemaType: 'boolean',
    errors: true,
    validate: function check(_on: boolean, data: number) {
      const bad = !Number.isFinite(data);
      if (bad) (check as unknown as { errors: unknown[] }).errors = [keywordError(FINITE, 'must be a finite number')];
      return !bad;
    },
  });
  return ajv;
}

/**
 * The app's validator compiler: bodies on a non-coercing Ajv, query strings, path parameters and
 * headers on a coercing one; every schema hardened first (the route's own object stays as
 * written, so the OpenAPI document is unchanged).
 */
export function requestValidatorCompiler(): FastifySchemaCompiler<FastifySchema> {
  const strict = newAjv(false);
  const coercing = newAjv(true);
  return ({ schema, httpPart }) => {
    if (httpPart === 'body') return nullMeansLeftOut(schema as Schema, strict.compile(hardenSchema(schema) as AnySchema) as ValidateFunction);
    return decimalTextOnly(schema as Schema, coercing.compile(hardenSchema(schema) as AnySchema) as ValidateFunction);
  };
}

const acceptsNull = (node: Schema): boolean => typesOf(node).includes('null') || ((node.anyOf ?? []) as Schema[]).some(acceptsNull);

/**
 * On a write that takes an idempotencyKey a top-level field sent as null is the request without
 * it (docs/http-conventions.md; the replay hash reads it so): such a null is dropped before
 * validation where the field does not take null itself, so its default applies (a futures
 * close's `fraction` 1, a PM open's `side` yes) instead of a 400 for a spelt-out retry.
 */
function nullMeansLeftOut(schema: Schema, validate: ValidateFunction): ValidateFunction {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  if (!Object.hasOwn(properties, 'idempotencyKey')) return validate;
  const dropped = Object.keys(properties).filter((name) => !acceptsNull(properties[name]!));
  const check = ((data: Record<string, unknown> | null | undefined) => {
    if (data && typeof data === 'object' && !Array.isArray(data)) for (const name of dropped) if (data[name] === null) delete data[name];
    const ok = validate(data);
    check.errors = validate.errors;
    return ok;
  }) as ValidateFunction;
  return check;
}

const INTEGER_TEXT = /^-?\d+$/;
/** A JSON number's text (also what MCP sends for one: String(1e21) is "1e+21"), or a bare ".5". */
const NUMBER_TEXT = /^-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * Query strings and path parameters are coerced to numbers by Ajv's `+text`, which also takes
 * `0x10`, `0b11`, `0o7`, `+5` and ` 5`; an integer field takes plain decimal digits only
 * (`limit=0x10` or `1e1` is 400, not 16 or 10), a number field decimal or exponent text.
 */
function decimalTextOnly(schema: Schema, validate: ValidateFunction): ValidateFunction {
  const numeric = Object.entries((schema.properties ?? {}) as Record<string, Schema>).flatMap(([name, node]) => {
    const types = typesOf(node);
    return types.includes('integer') ? [[name, INTEGER_TEXT] as const] : types.includes('number') ? [[name, NUMBER_TEXT] as const] : [];
  });
  if (numeric.length === 0) return validate;
  const check = ((data: Record<string, unknown> | null | undefined) => {
    for (const [name, pattern] of numeric) {
      const value = data?.[name];
      if (typeof value === 'string' && !pattern.test(value)) {
        const message = pattern === INTEGER_TEXT ? 'must be a plain decimal integer' : 'must be a decimal number';
        check.errors = [{ ...keywordError('type', message, `/${name}`), schemaPath: '#/type' } as ErrorObject];
        return false;
      }
    }
    const ok = validate(data);
    check.errors = validate.errors;
    return ok;
  }) as ValidateFunction;
  return check;
}
