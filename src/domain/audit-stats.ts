import { shareOf } from './money.js';

/** A key's ledger counters (running totals kept beside the ledger, src/storage/account-repo.ts). */
export interface AuditCounts {
  ledgerEventCount: number;
  quoteCount: number;
  writeCount: number;
  rejectionCount: number;
  idempotentReplayCount: number;
  runIdEventCount: number;
  decisionIdEventCount: number;
  writesWithQuote: number;
  /** Writes counted for evidence coverage (those kept in the ledger when the counter began, and every one since). */
  evidenceWriteCount: number;
  /** Of those, the writes that carried both a run id and a decision id. */
  writesWithEvidence: number;
}

/** Audit stats (supplement 2.7): public counters only, on `/performance` and on Arena rows. */
export function auditStatsOf(audit: AuditCounts) {
  const n = audit.ledgerEventCount;
  return {
    ledgerEventCount: n,
    quoteCount: audit.quoteCount,
    writeCount: audit.writeCount,
    rejectionCount: audit.rejectionCount,
    idempotentReplayCount: audit.idempotentReplayCount,
    runIdEventCount: audit.runIdEventCount,
    decisionIdEventCount: audit.decisionIdEventCount,
    missingRunIdCount: n - audit.runIdEventCount,
    missingDecisionIdCount: n - audit.decisionIdEventCount,
    runTraceCoverage: shareOf(audit.runIdEventCount, n),
    decisionTraceCoverage: shareOf(audit.decisionIdEventCount, n),
    quoteBeforeTradeRate: shareOf(audit.writesWithQuote, audit.writeCount),
  };
}

/** Scorecard `evidence_coverage` (supplement 2.13): the share of writes with run and decision ids; null without writes. */
export function evidenceCoverage(audit: Pick<AuditCounts, 'evidenceWriteCount' | 'writesWithEvidence'>): number | null {
  return shareOf(audit.writesWithEvidence, audit.evidenceWriteCount);
}

/** Scorecard `leakage_clean` (supplement 2.13): 1 when every write followed a quote, 0 when one did not, null without writes. */
export function leakageClean(audit: Pick<AuditCounts, 'writeCount' | 'writesWithQuote'>): 0 | 1 | null {
  if (audit.writeCount === 0) return null;
  return audit.writesWithQuote >= audit.writeCount ? 1 : 0;
}
