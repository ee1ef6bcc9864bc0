import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { SCOPES, USER_ID_PATTERN } from '../../../domain/api-keys.js';
import { checkBooks } from '../../../services/doctor.js';
import { createKey, rotateKey, toKeyView } from '../../../services/keys.js';
import { ensureUser, findKey, listKeys, listUsers, revokeKey, updateKey } from '../../../storage/keys-repo.js';
import type { AppContext } from '../../context.js';
import { ApiError } from '../../errors.js';
import { DateTime, ErrorBody, KeyId, Nullable, StrictBody, StringEnum } from '../../schemas.js';
import { adminRefusals, requireAdmin } from './admin-auth.js';
import { DoctorResponse, UsersResponse } from '../../responses/admin.js';

export const UserId = Type.String({ pattern: USER_ID_PATTERN, description: 'owner id, 1..64 chars' });
const Scope = StringEnum(SCOPES);
const KeyIdParam = Type.Object({ keyId: KeyId });
const AgentName = Nullable(Type.String({ minLength: 1, maxLength: 80 }));
const AgentModel = Nullable(Type.String({ minLength: 1, maxLength: 120 }));

/** Also what the CLI checks before it creates a key straight in the database (src/cli/admin-body.ts). */
export const CreateKeyBody = StrictBody({
  userId: UserId,
  name: Type.Optional(AgentName),
  model: Type.Optional(AgentModel),
  scopes: Type.Optional(Type.Array(Scope, { minItems: 1, maxItems: 4 })),
  public: Type.Optional(Type.Boolean()),
});

const KeyView = Type.Object({
  keyId: Type.Integer(),
  userId: Type.String(),
  scopes: Type.Array(Type.String()),
  agentName: Nullable(Type.String()),
  agentModel: Nullable(Type.String()),
  public: Type.Boolean(),
  handle: Nullable(Type.String()),
  keyPrefix: Type.String(),
  createdAt: DateTime,
  revokedAt: Nullable(DateTime),
});

/** A key with its raw secret: the only answers that carry one (create, rotate). */
const NewKeyView = Type.Object({ key: Type.String({ description: 'the raw key: shown once, never stored' }), ...KeyView.properties });

const errors = { 400: ErrorBody, 404: ErrorBody, ...adminRefusals };
const tags = ['admin'];
const security = [{ adminToken: [] }];

export function adminRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.addHook('onRequest', requireAdmin(ctx));
    const db = ctx.database.db;

    const keyOr404 = async (keyId: number) => {
      const row = await findKey(db, keyId);
      if (!row) throw new ApiError(404, 'key_not_found', `no key ${keyId}`);
      return row;
    };

    app.post(
      '/api/admin/users',
      {
        schema: {
          summary: 'Create an owner (idempotent: 201 created, 200 when it exists)',
          tags,
          security,
          body: StrictBody({ userId: UserId }),
          response: { 200: Type.Object({ userId: Type.String() }), 201: Type.Object({ userId: Type.String() }), ...errors },
        },
      },
      async (request, reply) => {
        const created = await ensureUser(db, request.body.userId);
        return reply.status(created ? 201 : 200).send({ userId: request.body.userId });
      },
    );

    app.get('/api/admin/users', { schema: { summary: 'List owners', tags, security, response: { 200: UsersResponse, ...adminRefusals } } }, async () => ({
      users: (await listUsers(db)).map((u) => ({ userId: u.id, createdAt: u.createdAt.toISOString(), keyCount: u.keyCount })),
    }));

    app.post(
      '/api/admin/keys',
      {
        schema: {
          summary: 'Create a key (the raw key is returned once)',
          tags,
          security,
          body: CreateKeyBody,
          response: { 201: NewKeyView, ...errors },
        },
      },
      async (request, reply) => {
        const body = request.body;
        const created = await createKey(db, {
          userId: body.userId,
          agentName: body.name ?? null,
          agentModel: body.model ?? null,
          scopes: body.scopes ?? ['read'],
          public: body.public ?? false,
        });
        return reply.status(201).send(created);
      },
    );

    app.get(
      '/api/admin/keys',
      { schema: { summary: 'List keys (never the raw key)', tags, security, querystring: Type.Object({ userId: Type.Optional(UserId) }), response: { 200: Type.Object({ keys: Type.Array(KeyView) }), ...errors } } },
      async (request) => ({ keys: (await listKeys(db, request.query.userId)).map(toKeyView) }),
    );

    app.patch(
      '/api/admin/keys/:keyId',
      {
        schema: {
          summary: 'Set agentName, agentModel or the public Arena opt-in',
          tags,
          security,
          params: KeyIdParam,
          body: StrictBody({ agentName: Type.Optional(AgentName), agentModel: Type.Optional(AgentModel), public: Type.Optional(Type.Boolean()) }),
          response: { 200: KeyView, 409: ErrorBody, ...errors },
        },
      },
      async (request) => {
        // a revoked key is retired: publishing or renaming it would only hide an operator's mistake
        if ((await keyOr404(request.params.keyId)).revokedAt) throw new ApiError(409, 'key_revoked', `key ${request.params.keyId} is revoked`);
        const { agentName, agentModel, public: isPublic } = request.body;
        const row = await updateKey(db, request.params.keyId, {
          ...(agentName !== undefined ? { agentName } : {}),
          ...(agentModel !== undefined ? { agentModel } : {}),
          ...(isPublic !== undefined ? { isPublic } : {}),
        });
        ctx.keyCache.evictKey(request.params.keyId);
        return toKeyView(row!);
      },
    );

    app.get('/api/admin/doctor', { schema: { summary: 'Check every paper book against its journal', tags, security, response: { 200: DoctorResponse, ...adminRefusals } } }, async () =>
      checkBooks(db),
    );

    app.post(
      '/api/admin/keys/:keyId/revoke',
      { schema: { summary: 'Revoke a key (its next request gets 401)', tags, security, params: KeyIdParam, response: { 200: KeyView, ...errors } } },
      async (request) => {
        await keyOr404(request.params.keyId);
        const row = await revokeKey(db, request.params.keyId, new Date(ctx.clock.now()));
        // This process refuses the key from its very next request; others on the notification.
        ctx.keyCache.evictKey(request.params.keyId);
        return toKeyView(row!);
      },
    );

    app.post(
      '/api/admin/keys/:keyId/rotate',
      {
        schema: {
          summary: 'Rotate a key: a new raw key (returned once) for the same key id, book and history; the old one gets 401',
          tags,
          security,
          params: KeyIdParam,
          response: { 200: NewKeyView, 409: ErrorBody, ...errors },
        },
      },
      async (request) => {
        await keyOr404(request.params.keyId);
        // null for a revoked key: the write itself refuses one
        const rotated = await rotateKey(db, request.params.keyId);
        if (!rotated) throw new ApiError(409, 'key_revoked', `key ${request.params.keyId} is revoked`);
        ctx.keyCache.evictKey(request.params.keyId);
        return rotated;
      },
    );
  };
}
