import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { COMPETITION_SLUG_PATTERN } from '../../../arena/competitions.js';
import { createCompetition, enterCompetition, listAllCompetitionMeta } from '../../../services/competitions.js';
import type { AppContext } from '../../context.js';
import { DateTime, ErrorBody, FreeText, KeyId, Nullable, StrictBody, StringEnum } from '../../schemas.js';
import { adminRefusals, requireAdmin } from '../admin/admin-auth.js';
import { AdminCompetitionsResponse, CompetitionEntry, CompetitionMeta } from '../../responses/arena.js';

const tags = ['admin'];
const security = [{ adminToken: [] }];
const errors = { 400: ErrorBody, 404: ErrorBody, 409: ErrorBody, ...adminRefusals };
export const COMPETITION_VISIBILITIES = ['featured', 'public', 'unlisted'] as const;

// Also what the CLI checks before it writes straight to the database (src/cli/admin-body.ts).
export const CreateCompetitionBody = StrictBody({
  slug: Type.String({ pattern: COMPETITION_SLUG_PATTERN, description: 'a-z 0-9 and -, 1..80' }),
  title: Type.String({ minLength: 1, maxLength: 120 }),
  description: Type.Optional(Nullable(FreeText({ maxLength: 2000 }))),
  startsAt: DateTime,
  endsAt: DateTime,
  visibility: Type.Optional(StringEnum(COMPETITION_VISIBILITIES)),
});
export const CompetitionEntryBody = StrictBody({ keyId: KeyId });

/** Owners create competitions and enter keys (the web app's human actions, as admin calls). */
export function adminCompetitionRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.addHook('onRequest', requireAdmin(ctx));
    const db = ctx.database.db;

    app.post(
      '/api/admin/competitions',
      {
        schema: {
          summary: 'Create a competition',
          tags,
          security,
          body: CreateCompetitionBody,
          response: { 201: CompetitionMeta, ...errors },
        },
      },
      async (request, reply) => reply.status(201).send(await createCompetition(db, request.body, ctx.clock.now())),
    );

    app.get('/api/admin/competitions', { schema: { summary: 'List every competition (unlisted too)', tags, security, response: { 200: AdminCompetitionsResponse, ...adminRefusals } } }, async () =>
      listAllCompetitionMeta(db, ctx.clock.now()),
    );

    app.post(
      '/api/admin/competitions/:slug/entries',
      {
        schema: {
          summary: 'Enter a key into a competition (idempotent)',
          tags,
          security,
          params: Type.Object({ slug: Type.String({ minLength: 1, maxLength: 80 }) }),
          body: CompetitionEntryBody,
          response: { 200: CompetitionEntry, ...errors },
        },
      },
      async (request) => enterCompetition(db, request.params.slug, request.body.keyId, ctx.clock.now()),
    );
  };
}
