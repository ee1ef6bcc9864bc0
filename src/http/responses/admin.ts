/** Response schemas of the operator surface (/api/admin/*) and the readiness probe. */
import { Type } from 'typebox';
import { DateTime, ErrorBody, Nullable } from '../schemas.js';
import { Bool, Int, Str } from './common.js';

export const UsersResponse = Type.Object({ users: Type.Array(Type.Object({ userId: Str(), createdAt: DateTime, keyCount: Int() })) });

/** Balances and journal sums are decimal strings (exact). */
export const DoctorResponse = Type.Object({
  ok: Bool(),
  walletsChecked: Int(),
  discrepancies: Type.Array(Type.Object({ walletId: Int(), keyId: Int(), bucket: Str(), balance: Str(), journal: Str() })),
  holdingDiscrepancies: Type.Array(
    Type.Object({ walletId: Int(), keyId: Nullable(Int()), coinId: Str(), bucket: Str(), balance: Nullable(Str()), journal: Str() }),
  ),
  changedMigrations: Type.Array(Str(), {
    description: 'applied migrations whose file in this build differs from what the database ran (a warning; `ok` is about the books)',
  }),
});

export const ReadyResponse = Type.Object({ status: Type.Literal('ready'), database: Str({ description: 'pglite or postgres' }) });
/** 503 from /readyz: the envelope plus what the process still waits for. */
export const NotReadyResponse = Type.Object({ ...ErrorBody.properties, waitingFor: Type.Optional(Type.Array(Str())) });
