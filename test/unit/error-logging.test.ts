import { describe, expect, it } from 'vitest';
import { serializeError } from '../../src/http/logging.js';

/** As Drizzle wraps a driver error: the statement and its parameters in the message, the driver's error as cause. */
class DrizzleQueryError extends Error {
  constructor(query: string, params: unknown[], cause: Error) {
    super(`Failed query: ${query}\nparams: ${params.join(',')}`, { cause });
  }
}
const driverError = (message: string, code: string) => Object.assign(new Error(message), { code });

describe('errors as logged', () => {
  it('keeps the driver reason of a database that cannot be used, never the statement or its parameters', () => {
    const closed = new DrizzleQueryError('select * from api_keys where key_hash = $1', ['secret-hash'], driverError('database "arena" is not currently accepting connections', '55000'));
    expect(serializeError(closed)).toEqual({
      type: 'DrizzleQueryError',
      sqlState: '55000',
      constraint: null,
      reason: 'database "arena" is not currently accepting connections (55000)',
    });
    const refused = new DrizzleQueryError('select 1', [], driverError('connect ECONNREFUSED 10.0.0.5:5432', 'ECONNREFUSED'));
    expect(serializeError(refused)).toMatchObject({ reason: 'connect ECONNREFUSED 10.0.0.5:5432' });
  });

  it('logs a statement error by its SQLSTATE and constraint only (its message may hold caller values)', () => {
    const duplicate = new DrizzleQueryError('insert into t values ($1)', ['caller-value'], Object.assign(driverError('duplicate key value violates unique constraint "t_pkey"', '23505'), { constraint: 't_pkey' }));
    const logged = serializeError(duplicate);
    expect(logged).toEqual({ type: 'DrizzleQueryError', sqlState: '23505', constraint: 't_pkey' });
    expect(JSON.stringify(logged)).not.toContain('caller-value');
  });
});
