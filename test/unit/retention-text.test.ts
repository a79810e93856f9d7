// One retention-text helper (issue 25 §20): a job's schedules and a droplet's
// or volume's schedule show the same counts the same way, zero included.
import { describe, expect, it } from 'vitest';
import { columns as jobColumns } from '../../src/resources/jobs.js';
import { columns as dropletColumns } from '../../src/resources/droplets.js';

const jobText = (retention: unknown) => {
  const c = jobColumns.schedule!.find((x) => x.key === 'retention')!;
  return (c.show ?? c.get)!({ retention });
};
const dropletText = (retention: unknown) => {
  const c = dropletColumns.droplet!.find((x) => x.key === 'retention')!;
  return (c.show ?? c.get)!({ retention });
};

describe('retention text', () => {
  const cases: Array<[unknown, string | undefined]> = [
    [{ hourly: 0, daily: 7, weekly: 4, monthly: 0 }, 'd7 w4'],
    [{ weekly: 4, daily: 7 }, 'd7 w4'],
    [{ hourly: 6, daily: 7, weekly: 4, monthly: 3 }, 'h6 d7 w4 m3'],
    [{ hourly: 0, daily: 0, weekly: 0, monthly: 0 }, 'none'],
    [{ daily: null, weekly: 2 }, 'w2'],
    [[], undefined],
    [null, undefined],
  ];
  it.each(cases)('%j', (retention, text) => {
    expect(jobText(retention) ?? undefined).toBe(text);
    expect(dropletText(retention) ?? undefined).toBe(text);
  });
});
