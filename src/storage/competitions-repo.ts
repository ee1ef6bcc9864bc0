import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from './db.js';
import { sqlStateOf } from './sql-state.js';

const FOREIGN_KEY_VIOLATION = '23503';

export interface CompetitionRow {
  id: number;
  slug: string;
  name: string;
  description: string | null;
  visibility: 'public' | 'unlisted';
  featured: boolean;
  startsAtMs: number;
  endsAtMs: number;
  createdAtMs: number;
  /** Public, unrevoked entrants (what the public board shows). */
  entryCount: number;
  /** Every key entered, private or revoked too (the operator's count). */
  entrantCount: number;
  finalBoard: unknown[] | null;
}

export interface NewCompetition {
  slug: string;
  name: string;
  description: string | null;
  visibility: 'public' | 'unlisted';
  featured: boolean;
  startsAtMs: number;
  endsAtMs: number;
  createdAtMs: number;
}

const iso = (ms: number) => new Date(ms).toISOString();
const columns = sql`c.id, c.slug, c.name, c.description, c.visibility, c.featured,
  (extract(epoch from c.starts_at) * 1000)::float8 as "startsAtMs", (extract(epoch from c.ends_at) * 1000)::float8 as "endsAtMs",
  (extract(epoch from c.created_at) * 1000)::float8 as "createdAtMs", c.final_board as "finalBoard",
  (select count(*)::int from competition_entries e join api_keys k on k.id = e.key_id
    where e.competition_id = c.id and k.is_public and k.revoked_at is null) as "entryCount",
  (select count(*)::int from competition_entries e where e.competition_id = c.id) as "entrantCount"`;

/** Inserts a competition; null when the slug is taken. */
export async function insertCompetition(db: Queryable, c: NewCompetition): Promise<CompetitionRow | null> {
  const rows = await queryRows<{ id: number }>(
    db,
    sql`insert into competitions (slug, name, description, visibility, featured, starts_at, ends_at, created_at)
        values (${c.slug}, ${c.name}, ${c.description}, ${c.visibility}, ${c.featured}, ${iso(c.startsAtMs)}::timestamptz,
          ${iso(c.endsAtMs)}::timestamptz, ${iso(c.createdAtMs)}::timestamptz)
        on conflict (slug) do nothing returning id`,
  );
  return rows[0] ? findCompetition(db, c.slug) : null;
}

export async function findCompetition(db: Queryable, slug: string): Promise<CompetitionRow | null> {
  const rows = await queryRows<CompetitionRow>(db, sql`select ${columns} from competitions c where c.slug = ${slug}`);
  return rows[0] ?? null;
}

/** Featured and public competitions (never unlisted), featured first, newest start first. */
export async function listListedCompetitions(db: Queryable): Promise<CompetitionRow[]> {
  return queryRows<CompetitionRow>(
    db,
    sql`select ${columns} from competitions c where c.visibility = 'public' order by c.featured desc, c.starts_at desc, c.id desc`,
  );
}

export async function listAllCompetitions(db: Queryable): Promise<CompetitionRow[]> {
  return queryRows<CompetitionRow>(db, sql`select ${columns} from competitions c order by c.id`);
}

/**
 * Enters a key once; entering again keeps the first join time. Returns the join time, or null
 * when the competition is gone (deleted while this ran).
 */
export async function insertEntry(db: Queryable, competitionId: number, keyId: number, joinedAtMs: number): Promise<number | null> {
  try {
    await db.execute(
      sql`insert into competition_entries (competition_id, key_id, joined_at) values (${competitionId}, ${keyId}, ${iso(joinedAtMs)}::timestamptz)
          on conflict do nothing`,
    );
  } catch (error) {
    if (sqlStateOf(error) === FOREIGN_KEY_VIOLATION) return null;
    throw error;
  }
  const [row] = await queryRows<{ at: number }>(
    db,
    sql`select (extract(epoch from joined_at) * 1000)::float8 as at from competition_entries where competition_id = ${competitionId} and key_id = ${keyId}`,
  );
  return row ? Number(row.at) : null;
}

export interface EntrantRow {
  keyId: number;
  agentName: string | null;
  agentModel: string | null;
  joinedAtMs: number;
  /** public and unrevoked now: only these show on a board */
  visible: boolean;
}

/** Every entered key, with whether a board may show it now. */
export async function listEntrants(db: Queryable, competitionId: number): Promise<EntrantRow[]> {
  return queryRows<EntrantRow>(
    db,
    sql`select k.id as "keyId", k.agent_name as "agentName", k.agent_model as "agentModel",
          (extract(epoch from e.joined_at) * 1000)::float8 as "joinedAtMs", (k.is_public and k.revoked_at is null) as visible
        from competition_entries e join api_keys k on k.id = e.key_id
        where e.competition_id = ${competitionId}`,
  );
}

/** Stores the final standings once; a second call keeps the first. */
export async function freezeFinalBoard(db: Queryable, competitionId: number, rows: unknown[], atMs: number): Promise<void> {
  await db.execute(
    sql`update competitions set final_board = ${JSON.stringify(rows)}::jsonb, finalized_at = ${iso(atMs)}::timestamptz
        where id = ${competitionId} and final_board is null`,
  );
}

/** What an edit may change. */
export type CompetitionChanges = Omit<NewCompetition, 'slug' | 'createdAtMs'>;

/**
 * Writes an edit decided on `read` (the row as it was read): nothing is written when any field
 * an edit may change moved since the read (another edit), or when the window moves on a
 * competition that has ended (or, for its start, started) by `nowMs` — the caller reads again and
 * decides again. Returns whether it was written.
 */
export async function updateCompetition(db: Queryable, read: CompetitionRow, next: CompetitionChanges, nowMs: number): Promise<boolean> {
  const now = iso(nowMs);
  const rows = await queryRows<{ id: number }>(
    db,
    sql`update competitions set name = ${next.name}, description = ${next.description}, visibility = ${next.visibility}, featured = ${next.featured},
          starts_at = ${iso(next.startsAtMs)}::timestamptz, ends_at = ${iso(next.endsAtMs)}::timestamptz
        where id = ${read.id} and name = ${read.name} and description is not distinct from ${read.description}
          and visibility = ${read.visibility} and featured = ${read.featured}
          and starts_at = ${iso(read.startsAtMs)}::timestamptz and ends_at = ${iso(read.endsAtMs)}::timestamptz
          and (ends_at = ${iso(next.endsAtMs)}::timestamptz or ends_at > ${now}::timestamptz)
          and (starts_at = ${iso(next.startsAtMs)}::timestamptz or starts_at > ${now}::timestamptz)
        returning id`,
  );
  return rows.length > 0;
}

/** Removes an entry while the competition has not ended by `nowMs`; returns whether one was removed. */
export async function deleteEntry(db: Queryable, competitionId: number, keyId: number, nowMs: number): Promise<boolean> {
  const rows = await queryRows<{ keyId: number }>(
    db,
    sql`delete from competition_entries e using competitions c
        where e.competition_id = ${competitionId} and e.key_id = ${keyId} and c.id = e.competition_id and c.ends_at > ${iso(nowMs)}::timestamptz
        returning e.key_id as "keyId"`,
  );
  return rows.length > 0;
}

/** Deletes a competition (its entries go with it: cascade) that has not started by `nowMs`; returns whether it was deleted. */
export async function deleteUpcomingCompetition(db: Queryable, competitionId: number, nowMs: number): Promise<boolean> {
  const rows = await queryRows<{ id: number }>(
    db,
    sql`delete from competitions where id = ${competitionId} and starts_at > ${iso(nowMs)}::timestamptz returning id`,
  );
  return rows.length > 0;
}
