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
  run: 'public, max-age=31536000, immutable',
  competitions: 'public, max-age=30',
} as const;
