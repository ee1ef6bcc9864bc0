/** Arena reads the pages need beyond the JSON routes' service calls. */
import { decisionsPage } from '../services/arena-decisions.js';
import type { Queryable } from '../storage/db.js';
import { realizedPointsPart, type RealizedPoint } from '../storage/account-repo.js';
import { readBook } from '../storage/book-read-repo.js';

const CURVE_MAX_POINTS = 500;
const PROFILE_DECISIONS = 10;

/**
 * The public equity curve of an agent: cumulative realized PnL after each closed trade (the
 * figure the Arena ranks by), from 0 before the first one to now.
 */
export async function realizedCurve(db: Queryable, keyId: number, nowMs: number): Promise<[number, number][]> {
  const book = await readBook(db, keyId, { points: realizedPointsPart(new Date(0), CURVE_MAX_POINTS) });
  const points = (book?.parts.points ?? []) as RealizedPoint[];
  const nowS = Math.floor(nowMs / 1000);
  if (points.length === 0) return [[nowS - 86_400, 0], [nowS, 0]];
  const first = points[0]!;
  const curve: [number, number][] = [[Date.parse(first.t) / 1000 - 1, Number(first.cumulative) - Number(first.realizedPnl)]];
  for (const p of points) curve.push([Date.parse(p.t) / 1000, Number(p.cumulative)]);
  if (curve.at(-1)![0] < nowS) curve.push([nowS, curve.at(-1)![1]]);
  return curve;
}

/** The first resolved decisions and recorded opportunities of one public agent. */
export async function agentDecisions(db: Queryable, keyId: number, nowMs: number) {
  const page = await decisionsPage(db, { nowMs, limit: PROFILE_DECISIONS, cursor: { d: 0, o: 0 }, cursorText: null, keyId, matchesNothing: false, includeOpportunities: true });
  const env = page.envelope;
  return [
    ...env.decisions.map((d) => ({ decisionUuid: d.decisionUuid, question: d.question, venue: d.venue, result: d.result, pnlMusd: d.pnlMusd, openedAt: d.openedAt, kind: 'opened' })),
    ...(env.opportunities ?? []).map((o) => ({ decisionUuid: o.decisionUuid, question: o.eventTitle, venue: o.venue, result: null, pnlMusd: null, openedAt: o.createdAt, kind: o.opportunityKind })),
  ];
}
