import { Type } from 'typebox';
import { ErrorBody } from '../../schemas.js';

export const tags = ['arena'];
export const publicErrors = { 400: ErrorBody, 404: ErrorBody, 429: ErrorBody };
/** Path handle as the contract types it (length 1..64); the pattern is checked in the handler. */
export const HandleParam = Type.Object({ handle: Type.String({ minLength: 1, maxLength: 64 }) });

/** Cache lifetimes of contract §8. */
export const CACHE = {
  leaderboard: 'public, max-age=30',
  decisions: 'public, max-age=300',
  scorecard: 'public, max-age=60',
  // a run never changes ("immutable, cached long"), but one whose agent is unpublished or revoked
  // answers 404 from then on: a day bounds how long shared caches keep serving it (it was a year)
  run: 'public, max-age=86400, immutable',
  competitions: 'public, max-age=30',
} as const;
