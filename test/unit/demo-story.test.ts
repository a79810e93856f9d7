// The demo tour's words about `report` (src/scripts/demo-story.mjs) on hand-made totals.
import { describe, expect, it } from 'vitest';
import { reportStory } from '../../src/scripts/demo-story.mjs';
import { totalsOf } from '../../src/report/compute.js';
import type { ReportDocument, ReportEntry, ReportTotals } from '../../src/report/model.js';

// Every count zero (the totals of no entry), then the figures given.
const totals = (t: Partial<ReportTotals>): ReportTotals => ({ ...totalsOf([]), ...t });

function doc(jobs: Array<Pick<ReportEntry, 'name' | 'missed'>>, t: Partial<ReportTotals>): ReportDocument {
  return {
    generated_at: '2026-03-31T00:00:00.000Z',
    window: { since: '2026-03-01T00:00:00.000Z', until: '2026-03-31T00:00:00.000Z', grace_seconds: 3600 },
    summary: { jobs: totals(t), droplets: null, volumes: null, resources: null },
    jobs: jobs as ReportEntry[],
    droplets: null,
    volumes: null,
    resources: null,
    notes: [],
  };
}

describe('reportStory', () => {
  it('names the jobs that missed runs, most first, and the success rate', () => {
    const d = doc(
      [
        { name: 'b', missed: 1 },
        { name: 'a', missed: 0 },
        { name: 'c', missed: 3 },
        { name: 'a2', missed: 1 },
      ],
      { entries: 4, computable: 4, expected: 120, completed: 112, failed: 2, missed: 5, pending: 1, success_rate: 112 / 119 },
    );
    expect(reportStory(d)).toBe('Over 30 days the 4 jobs expected 120 runs: 112 completed, 2 failed, 5 missed (c 3, a2 1 and b 1) and 1 not judged yet; success 94.1%');
  });

  it('says when none was missed, in the singular where it applies', () => {
    const d = doc([{ name: 'a', missed: 0 }], { entries: 1, computable: 1, expected: 1, completed: 1, success_rate: 1 });
    expect(reportStory(d)).toBe('Over 30 days the 1 job expected 1 run: 1 completed and none missed; success 100.0%');
  });
});
