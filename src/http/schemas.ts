import { Type, type TProperties } from 'typebox';
import { MAX_KEY_ID } from '../domain/api-keys.js';
import { FIAT_CODES } from '../marketdata/sim/fiat.js';

/** Request bodies reject unknown fields (DESIGN: unknown body fields → 400). */
export const StrictBody = <T extends TProperties>(properties: T) => Type.Object(properties, { additionalProperties: false });

/**
 * Free text (a thesis, a description, a rationale): may keep TAB, LF and CR. Every other
 * request string refuses all control characters (src/http/validation.ts).
 */
export const FreeText = (options: Record<string, unknown> = {}) => Type.String({ ...options, 'x-free-text': true });

/** The one error envelope; `field`, `blockReasons`, `requiredScope` and `retryAfterSeconds` appear where they apply. */
export const ErrorBody = Type.Object({
  error: Type.String({ description: 'stable snake_case code' }),
  message: Type.String(),
  field: Type.Optional(Type.String({ description: 'the offending input, e.g. body.quantity or query.limit' })),
  blockReasons: Type.Optional(Type.Array(Type.String(), { description: 'why a gate refused (values, not prose)' })),
  requiredScope: Type.Optional(Type.String({ description: '403 insufficient_scope: the scope the call needs' })),
  retryAfterSeconds: Type.Optional(Type.Integer({ description: '429: seconds until the budget resets (also the Retry-After header)' })),
});

export const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

/** `agentTrace` accepted on every write and quote body (contract supplement 1.0). */
export const AgentTrace = Type.Object(
  {
    runId: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
    decisionId: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
    strategyLabel: Type.Optional(Nullable(Type.String({ maxLength: 120 }))),
    confidence: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 1 }))),
    rationaleSummary: Type.Optional(Nullable(FreeText({ maxLength: 1200 }))),
  },
  { additionalProperties: false },
);

export const agentErrors = {
  400: ErrorBody,
  401: ErrorBody,
  403: ErrorBody,
  429: ErrorBody,
};

/** An RFC 3339 date-time; in requests its instant must lie in years 1..9999 UTC (src/http/validation.ts). */
export const DateTime = Type.String({ format: 'date-time' });
/** Every write takes an idempotency key of 1..128 characters (supplement: [ours] 1..128). */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 128;
export const IdempotencyKey = Type.String({ minLength: 1, maxLength: MAX_IDEMPOTENCY_KEY_LENGTH, description: 'one key per intent: a retry with the same key and body replays the first answer' });

/** An API key id as a request names it (a PostgreSQL integer: a larger one is refused, not looked up). */
export const KeyId = Type.Integer({ minimum: 1, maximum: MAX_KEY_ID });

/** A string enum as plain JSON Schema (`enum`), typed as the union of its values. */
export const StringEnum = <const T extends readonly string[]>(values: T, options: Record<string, unknown> = {}) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });

/** A documented object whose extra fields pass through (responses are open maps). */
export const OpenObject = (description: string) => Type.Object({}, { additionalProperties: true, description });


/** What a `fiat` query parameter takes (the handlers check it: any case, one of the simulated rates' codes). */
export const FIAT_DESCRIPTION = `ISO 4217 code, any case (default USD): ${FIAT_CODES.join(', ')}`;
