import { handleFor } from '../domain/api-keys.js';
import { COMPETITION_MIN_DECIDED_TRADES, COMPETITION_SLUG_PATTERN, competitionStatus, rankCompetition, windowEditRefusal, windowProblem } from '../arena/competitions.js';
import { COMPETITION_SPARK_MAX_POINTS, windowedSparkline } from '../arena/sparkline.js';
import { byVenueView, decidedOf, emptyVenueCounts, totalOf, winRateOf } from '../arena/stats.js';
import { daysBetween } from '../arena/windows.js';
import { loadTradeDayPnl, loadTradeWindowCounts } from '../storage/arena-board-repo.js';
import { BOARD_SETTLE_MS } from './arena-board.js';
import { ApiError, invalidRequest, notFound } from '../http/errors.js';
import { findKey } from '../storage/keys-repo.js';
import {
  deleteEntry,
  deleteUpcomingCompetition,
  findCompetition,
  freezeFinalBoard,
  insertCompetition,
  insertEntry,
  listAllCompetitions,
  listListedCompetitions,
  listEntrants,
  updateCompetition,
  type CompetitionRow,
  type EntrantRow,
} from '../storage/competitions-repo.js';
import type { Queryable } from '../storage/db.js';

const iso = (ms: number) => new Date(ms).toISOString();

/** Public meta: no ids, owners or invite codes. */
export function competitionMeta(c: CompetitionRow, nowMs: number) {
  return {
    slug: c.slug,
    name: c.name,
    description: c.description,
    visibility: c.visibility,
    featured: c.featured,
    startsAt: iso(c.startsAtMs),
    endsAt: iso(c.endsAtMs),
    status: competitionStatus(nowMs, c.startsAtMs, c.endsAtMs),
    createdAt: iso(c.createdAtMs),
    entryCount: c.entryCount,
  };
}

export async function listCompetitions(db: Queryable, nowMs: number) {
  return { competitions: (await listListedCompetitions(db)).map((c) => competitionMeta(c, nowMs)), asOf: iso(nowMs) };
}

type BoardRow = Awaited<ReturnType<typeof computeRows>>[number];

/** Standings figures over [startsAt, min(endsAt, now)] of every entrant (unranked: who shows is decided when serving). */
async function computeRows(db: Queryable, c: CompetitionRow, entrants: EntrantRow[], nowMs: number) {
  const toMs = Math.min(c.endsAtMs, nowMs);
  const ids = entrants.map((e) => e.keyId);
  const counts = ids.length > 0 && toMs >= c.startsAtMs ? await loadTradeWindowCounts(db, c.startsAtMs, toMs, ids) : new Map();
  const days = ids.length > 0 && toMs >= c.startsAtMs ? await loadTradeDayPnl(db, ids, c.startsAtMs, toMs) : new Map();
  const range = toMs >= c.startsAtMs ? daysBetween(c.startsAtMs, toMs) : [];
  return entrants.map((e) => {
    const venues = counts.get(e.keyId) ?? emptyVenueCounts();
    const total = totalOf(venues);
    return {
      keyId: e.keyId,
      handle: handleFor(e.keyId, e.agentName),
      agentName: e.agentName,
      model: e.agentModel,
      realizedPnl: total.pnl,
      decided: decidedOf(total),
      realizedPnlMusd: total.pnl,
      tradeCount: total.trades,
      decidedTradeCount: decidedOf(total),
      winCount: total.wins,
      lossCount: total.losses,
      winRate: winRateOf(total),
      byVenue: byVenueView(venues),
      sparkline: range.length > 0 ? windowedSparkline(range, days.get(e.keyId) ?? [], COMPETITION_SPARK_MAX_POINTS) : [],
      joinedAt: iso(e.joinedAtMs),
    };
  });
}

/** What leaves: no key ids, and no ranking helpers. */
function publicRow(r: BoardRow & { rank: number | null }) {
  const { keyId: _k, realizedPnl: _p, decided: _d, ...row } = r;
  return row;
}

/**
 * `GET /api/competitions/{slug}`; null for an unknown slug. Ended boards are frozen on the first
 * read from BOARD_SETTLE_MS after the end, with every entrant's figures, so an agent hidden at that moment (unpublished, private)
 * shows again once public. Who shows, under which name, is decided at each read: public,
 * unrevoked entrants under their current handle, ranked among themselves (a gap would show
 * where a hidden one placed).
 */
export async function competitionBoard(db: Queryable, slug: string, nowMs: number) {
  const c = await findCompetition(db, slug);
  if (!c) return null;
  const entrants = await listEntrants(db, c.id);
  let figures: BoardRow[];
  if (c.finalBoard) {
    figures = c.finalBoard as BoardRow[];
  } else {
    figures = await computeRows(db, c, entrants, nowMs);
    // a trade stamped just before the end may still be committing at the end: freeze once it has had time to
    if (nowMs >= c.endsAtMs + BOARD_SETTLE_MS) await freezeFinalBoard(db, c.id, figures, nowMs);
  }
  const shown = new Map(entrants.filter((e) => e.visible).map((e) => [e.keyId, e]));
  const rows = rankCompetition(
    figures.flatMap((r) => {
      const e = shown.get(r.keyId);
      return e ? [{ ...r, handle: handleFor(e.keyId, e.agentName), agentName: e.agentName, model: e.agentModel }] : [];
    }),
  );
  return {
    competition: competitionMeta(c, nowMs),
    minDecidedTrades: COMPETITION_MIN_DECIDED_TRADES,
    rows: rows.map(publicRow),
    asOf: iso(nowMs),
  };
}

export interface CreateCompetitionInput {
  slug: string;
  title: string;
  description?: string | null;
  startsAt: string;
  endsAt: string;
  visibility?: 'featured' | 'public' | 'unlisted';
}

/** Owner action (admin API and CLI): creates a competition or says why not. */
export async function createCompetition(db: Queryable, input: CreateCompetitionInput, nowMs: number) {
  if (!new RegExp(COMPETITION_SLUG_PATTERN).test(input.slug)) throw invalidRequest('body.slug', 'slug: 1..80 of a-z, 0-9 and -, starting with a letter or digit');
  refuseTitle(input.title);
  const startsAtMs = Date.parse(input.startsAt);
  const endsAtMs = Date.parse(input.endsAt);
  refuseWindow(startsAtMs, endsAtMs, nowMs);
  const created = await insertCompetition(db, {
    slug: input.slug,
    name: input.title,
    description: input.description ?? null,
    ...storedVisibility(input.visibility ?? 'public'),
    startsAtMs,
    endsAtMs,
    createdAtMs: nowMs,
  });
  if (!created) throw new ApiError(409, 'competition_slug_taken', `slug ${input.slug} is taken`, { field: 'body.slug' });
  return competitionMeta(created, nowMs);
}

type Visibility = NonNullable<CreateCompetitionInput['visibility']>;
const storedVisibility = (v: Visibility) => ({ visibility: v === 'unlisted' ? ('unlisted' as const) : ('public' as const), featured: v === 'featured' });

function refuseWindow(startsAtMs: number, endsAtMs: number, nowMs: number): void {
  const problem = windowProblem(startsAtMs, endsAtMs, nowMs);
  if (problem) throw invalidRequest(`body.${problem.field}`, `body.${problem.message}`);
}

function refuseTitle(title: string): void {
  if (title.trim().length === 0 || title.length > 120) throw invalidRequest('body.title', 'title: 1..120 characters, not only spaces');
}

export type EditCompetitionInput = Partial<Omit<CreateCompetitionInput, 'slug'>>;

async function competitionOr404(db: Queryable, slug: string): Promise<CompetitionRow> {
  const competition = await findCompetition(db, slug);
  if (!competition) throw notFound('competition_not_found', `no competition ${slug}`);
  return competition;
}

/**
 * Owner action: changes a competition's title, description, visibility or window. The window
 * keeps create's rules; an ended competition keeps its window, a started one its start.
 */
export async function editCompetition(db: Queryable, slug: string, input: EditCompetitionInput, nowMs: number) {
  for (let attempt = 0; ; attempt++) {
    const current = await competitionOr404(db, slug);
    if (input.title !== undefined) refuseTitle(input.title);
    const startsAtMs = input.startsAt !== undefined ? Date.parse(input.startsAt) : current.startsAtMs;
    const endsAtMs = input.endsAt !== undefined ? Date.parse(input.endsAt) : current.endsAtMs;
    const refusal = windowEditRefusal(current, { startsAtMs, endsAtMs }, nowMs);
    if (refusal) throw new ApiError(409, refusal.code, `competition ${slug}: ${refusal.message}`, { field: `body.${refusal.field}` });
    if (startsAtMs !== current.startsAtMs || endsAtMs !== current.endsAtMs) refuseWindow(startsAtMs, endsAtMs, nowMs);
    const visibility = input.visibility ? storedVisibility(input.visibility) : { visibility: current.visibility, featured: current.featured };
    const next = { name: input.title ?? current.name, description: input.description !== undefined ? input.description : current.description, ...visibility, startsAtMs, endsAtMs };
    if (await updateCompetition(db, current, next, nowMs)) return competitionMeta(await competitionOr404(db, slug), nowMs);
    // another edit changed the competition between the read and the write: decide again on what it left
    if (attempt >= 2) throw new ApiError(409, 'competition_changed', `competition ${slug} changed while it was edited; try again`);
  }
}

/** Owner action: takes a key out of a competition that has not ended (its board then leaves it out). */
export async function removeCompetitionEntry(db: Queryable, slug: string, keyId: number, nowMs: number) {
  const refuseEnded = (c: CompetitionRow) => {
    if (nowMs >= c.endsAtMs) throw new ApiError(409, 'competition_ended', `competition ${slug} has ended; its entries are final`);
  };
  const competition = await competitionOr404(db, slug);
  refuseEnded(competition);
  if (!(await deleteEntry(db, competition.id, keyId, nowMs))) {
    refuseEnded(await competitionOr404(db, slug)); // its end moved meanwhile
    throw notFound('entry_not_found', `key ${keyId} is not entered in ${slug}`);
  }
  return { slug, keyId, removedAt: iso(nowMs) };
}

/** Owner action: deletes a competition before it starts (a started one can be made unlisted instead). */
export async function deleteCompetition(db: Queryable, slug: string, nowMs: number) {
  const competition = await competitionOr404(db, slug);
  if (nowMs >= competition.startsAtMs || !(await deleteUpcomingCompetition(db, competition.id, nowMs))) {
    if (!(await findCompetition(db, slug))) throw notFound('competition_not_found', `no competition ${slug}`);
    throw new ApiError(409, 'competition_started', `competition ${slug} has started; set its visibility to unlisted to hide it`);
  }
  return { slug, deletedAt: iso(nowMs) };
}

/** Owner action: enters a key (idempotent; the first join time stays). */
export async function enterCompetition(db: Queryable, slug: string, keyId: number, nowMs: number) {
  const competition = await competitionOr404(db, slug);
  const key = await findKey(db, keyId);
  if (!key) throw notFound('key_not_found', `no key ${keyId}`);
  if (key.revokedAt) throw new ApiError(409, 'key_revoked', `key ${keyId} is revoked`, { field: 'body.keyId' });
  if (nowMs >= competition.endsAtMs) throw new ApiError(409, 'competition_ended', `competition ${slug} has ended`);
  const joinedAtMs = await insertEntry(db, competition.id, keyId, nowMs);
  if (joinedAtMs === null) throw notFound('competition_not_found', `no competition ${slug}`); // deleted meanwhile
  return { slug, keyId, joinedAt: iso(joinedAtMs), public: key.isPublic };
}

/** The operator's list: every competition, with every entrant counted (the public entryCount leaves private and revoked keys out). */
export async function listAllCompetitionMeta(db: Queryable, nowMs: number) {
  return { competitions: (await listAllCompetitions(db)).map((c) => ({ ...competitionMeta(c, nowMs), entrantCount: c.entrantCount })) };
}
