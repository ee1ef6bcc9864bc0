import type { TSchema } from 'typebox';
import { validationProblem } from '../http/plugins/errors.js';
import { requestValidatorCompiler } from '../http/validation.js';
import { CliError } from './args.js';

const compile = requestValidatorCompiler();

/**
 * Refuses a body the admin API would refuse, with the same schema, validator and message: the
 * CLI writes straight to the database when no server runs, and created keys without scopes or
 * with an empty name that the API answers 400.
 */
export function checkAdminBody(schema: TSchema, body: object): void {
  const json = JSON.parse(JSON.stringify(body)) as unknown; // what the HTTP path would send
  const validate = compile({ schema, httpPart: 'body', method: 'POST', url: '' }) as ((data: unknown) => boolean) & { errors?: Parameters<typeof validationProblem>[0] };
  if (!validate(json)) throw new CliError(`400 invalid_request: ${validationProblem(validate.errors, 'body').message}`);
}
