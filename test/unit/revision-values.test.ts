import { describe, expect, it } from 'vitest';
import { revisionValueOf } from '../../src/storage/pm-research-repo.js';

describe('stored revision values', () => {
  it("write their instants as the API does, whatever time zone PostgreSQL's session wrote them in", () => {
    const stored = JSON.stringify({ endDate: '2026-11-27T16:32:00+01:00', startDate: '2026-11-27T10:32:00.5-05:30', utc: '2026-11-27T15:32:00+00:00', title: 'Q at 16:32', n: 3 });
    expect(revisionValueOf(stored)).toEqual({
      endDate: '2026-11-27T15:32:00.000Z',
      startDate: '2026-11-27T16:02:00.500Z',
      utc: '2026-11-27T15:32:00.000Z',
      title: 'Q at 16:32',
      n: 3,
    });
    expect(revisionValueOf(null)).toBeNull();
  });
});
