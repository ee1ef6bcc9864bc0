import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { COMPETITION_SLUG_PATTERN } from '../../../arena/competitions.js';
import { createCompetition, deleteCompetition, editCompetition, enterCompetition, listAllCompetitionMeta, removeCompetitionEntry } from '../../../services/competitions.js';
import type { AppContext } from '../../context.js';
import { DateTime, ErrorBody, FreeText, KeyId, Nullable, StrictBody, StringEnum } from '../../schemas.js';
import { adminRefusals, requireAdmin } from '../admin/admin-auth.js';
import { AdminCompetitionsResponse, CompetitionDeleted, CompetitionEntry, CompetitionEntryRemoved, CompetitionMeta } from '../../responses/arena.js';

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
/** What an edit may change: any of create's fields but the slug, at least one. */
export const EditCompetitionBody = Type.Partial(Type.Omit(CreateCompetitionBody, ['slug']), { additionalProperties: false, minProperties: 1 });
const SlugParam = Type.Object({ slug: Type.String({ minLength: 1, maxLength: 80 }) });

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
          params: SlugParam,
          body: CompetitionEntryBody,
          response: { 200: CompetitionEntry, ...errors },
        },
      },
      async (request) => enterCompetition(db, request.params.slug, request.body.keyId, ctx.clock.now()),
    );

    app.patch(
      '/api/admin/competitions/:slug',
      {
        schema: {
          summary: 'Edit a competition (title, description, visibility; the window until it ends, its start until it starts)',
          tags,
          security,
          params: SlugParam,
          body: EditCompetitionBody,
          response: { 200: CompetitionMeta, ...errors },
        },
      },
      async (request) => editCompetition(db, request.params.slug, request.body, ctx.clock.now()),
    );

    app.delete(
      '/api/admin/competitions/:slug',
      {
        schema: {
          summary: 'Delete a competition that has not started (a started one can be made unlisted)',
          tags,
          security,
          params: SlugParam,
          response: { 200: CompetitionDeleted, ...errors },
        },
      },
      async (request) => deleteCompetition(db, request.params.slug, ctx.clock.now()),
    );

    app.delete(
      '/api/admin/competitions/:slug/entries/:keyId',
      {
        schema: {
          summary: 'Take a key out of a competition that has not ended',
          tags,
          security,
          params: Type.Object({ ...SlugParam.properties, keyId: KeyId }),
          response: { 200: CompetitionEntryRemoved, ...errors },
        },
      },
      async (request) => removeCompetitionEntry(db, request.params.slug, request.params.keyId, ctx.clock.now()),
    );
  };
}
