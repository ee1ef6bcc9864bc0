/**
 * Reference shapes of a canonical cross-venue event (reference-shapes B1/B2): a permanent
 * uuid and slug derived from the cluster key, the identity record, the consensus object
 * (binary = the anchor's Yes side) and a lineage derived from when each venue's market was
 * first seen. Pure: everything comes from the cluster rows and the snapshot's reference.
 */
import { createHash } from 'node:crypto';
import type { PmMarketRow } from '../storage/pm-repo.js';
import type { OutcomeQuote } from './types.js';
import type { ReferenceProbability } from './views.js';

/** A name-based UUID (version 8 layout) of the cluster key: the same key always gives the same uuid. */
export function canonicalUuid(key: string): string {
  const b = createHash('sha256').update(`canonical:${key}`).digest();
  b[6] = (b[6]! & 0x0f) | 0x80;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.subarray(0, 16).toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const slugWords = (t: string) => t.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60).replace(/-+$/g, '');
/** Slugified anchor title plus the first 8 uuid characters (companion-doc rule). */
export const canonicalSlug = (title: string, uuid: string) => `${slugWords(title) || 'event'}-${uuid.slice(0, 8)}`;

export const anchorOf = (members: PmMarketRow[]): PmMarketRow => members.find((m) => m.matchBasis === 'anchor') ?? members[0]!;

interface LineageEntry {
  revision: number;
  action: 'created' | 'member_added';
  eventId: number;
  source: string;
  eventSlug: string;
  detail: Record<string, unknown>;
  judgedBy: 'matcher';
  at: string;
}

/**
 * Lineage from first-seen times, oldest first while building: the canonical is created when a
 * second venue lists the question; every later venue market is a `member_added`. Served newest first.
 */
function lineageOf(members: PmMarketRow[], anchor: PmMarketRow): LineageEntry[] {
  const byTime = [...members].sort((a, b) => a.firstSeenAt.getTime() - b.firstSeenAt.getTime() || Number(b === anchor) - Number(a === anchor) || a.eventId - b.eventId);
  const venues = new Set<string>();
  let createdIdx = byTime.length - 1;
  for (let i = 0; i < byTime.length; i += 1) {
    venues.add(byTime[i]!.source);
    if (venues.size >= 2) {
      createdIdx = i;
      break;
    }
  }
  const createdAt = byTime[createdIdx]!.firstSeenAt.toISOString();
  const entries: LineageEntry[] = [
    {
      revision: 1,
      action: 'created',
      eventId: anchor.eventId,
      source: anchor.source,
      eventSlug: anchor.slug,
      detail: { members: byTime.slice(0, createdIdx + 1).map((m) => `${m.source}/${m.slug}`) },
      judgedBy: 'matcher',
      at: createdAt,
    },
  ];
  for (const m of byTime.slice(createdIdx + 1)) {
    entries.push({ revision: entries.length + 1, action: 'member_added', eventId: m.eventId, source: m.source, eventSlug: m.slug, detail: { orientation: m.orientation, confidence: m.matchConfidence }, judgedBy: 'matcher', at: m.firstSeenAt.toISOString() });
  }
  return entries.reverse();
}

/** The identity record (B1 item keys; B2 `canonical`). */
export function canonicalIdentity(key: string, members: PmMarketRow[]): Record<string, unknown> {
  const anchor = anchorOf(members);
  const uuid = canonicalUuid(key);
  const lineage = lineageOf(members, anchor);
  return {
    uuid,
    slug: canonicalSlug(anchor.title, uuid),
    title: anchor.title,
    revision: lineage.length,
    status: 'active',
    memberCount: members.length,
    createdAt: lineage[lineage.length - 1]!.at,
    updatedAt: lineage[0]!.at,
  };
}

export const canonicalLineage = (members: PmMarketRow[]) => lineageOf(members, anchorOf(members));

/**
 * B2 `consensus` (closed, eight keys) from the anchor's reference: `binary` reports the anchor's
 * Yes side with `outcomeName: null`; `leader` the leading named outcome. `listings` are the open
 * members whose orientation is known (the ones a reference is computed from).
 */
export function canonicalConsensus(members: PmMarketRow[], ref: ReferenceProbability | null): Record<string, unknown> | null {
  if (!ref) return null;
  const anchor = anchorOf(members);
  let probability = ref.probability;
  if (ref.kind === 'binary') {
    const yes = (anchor.outcomes as OutcomeQuote[])[0]!.name;
    if (ref.outcomeName !== yes) probability = Math.round((100 - ref.probability) * 10) / 10;
  }
  return {
    kind: ref.kind,
    outcomeName: ref.kind === 'binary' ? null : ref.outcomeName,
    probability,
    venueCount: ref.venueCount,
    spreadPoints: ref.spreadPoints,
    computedAt: ref.computedAt,
    methodologyVersion: ref.methodologyVersion,
    listings: members.filter((m) => m.status === 'open' && m.orientation && m.orientation !== 'unknown').map((m) => ({ source: m.source, eventSlug: m.slug })),
  };
}
