// One rule where there were two (issue 23 §19, §21): service times and
// statuses mean the same to every command.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseServiceTime } from '../../src/util/time.js';
import { parseDateTime, relativeTime } from '../../src/output/format.js';

describe('service times (§19): a time with no zone is UTC, whatever TZ says', () => {
  let tz: string | undefined;
  beforeEach(() => {
    tz = process.env.TZ;
    process.env.TZ = 'America/New_York';
  });
  afterEach(() => {
    if (tz === undefined) delete process.env.TZ;
    else process.env.TZ = tz;
  });

  const cases: Array<[string, string | undefined]> = [
    ['2022-01-11T06:40:29', '2022-01-11T06:40:29.000Z'],
    ['2022-01-11 06:40:29', '2022-01-11T06:40:29.000Z'],
    ['2022-01-11T06:40', '2022-01-11T06:40:00.000Z'],
    ['2022-01-11T06:40:29.123456Z', '2022-01-11T06:40:29.123Z'],
    ['2022-01-11T06:40:29+02:00', '2022-01-11T04:40:29.000Z'],
    ['2022-01-11T06:40:29+0200', '2022-01-11T04:40:29.000Z'],
    ['2022-01-11', '2022-01-11T00:00:00.000Z'],
    ['yesterday', undefined],
    ['', undefined],
  ];
  it.each(cases)('%s', (text, iso) => {
    const ms = parseServiceTime(text);
    expect(ms === undefined ? undefined : new Date(ms).toISOString()).toBe(iso);
    // The output layer reads the same moment.
    expect(parseDateTime(text)?.toISOString()).toBe(iso);
  });
  it('the relative time of a zoneless time does not move with TZ', () => {
    const now = new Date('2022-01-11T08:40:29Z');
    expect(relativeTime('2022-01-11T06:40:29', now)).toBe('2 hours ago');
  });
});

describe('statuses (§21): one definition', async () => {
  const { isFailure, isFinished, isInProgress, isSuccess, outcomeOf, BACKUP_STATUSES, BACKUP_STATUSES_BY_OUTCOME, SNAPSHOT_STATUSES, SNAPSHOT_STATUSES_BY_OUTCOME } =
    await import('../../src/backups/status.js');
  it('the lists in metric order are the same statuses, each with a known meaning', () => {
    expect([...BACKUP_STATUSES_BY_OUTCOME].sort()).toEqual([...BACKUP_STATUSES].sort());
    expect(SNAPSHOT_STATUSES_BY_OUTCOME.every((s) => (SNAPSHOT_STATUSES as readonly string[]).includes(s))).toBe(true);
    expect([...BACKUP_STATUSES, ...SNAPSHOT_STATUSES].map(outcomeOf)).not.toContain('unknown');
  });
  it('success is completed; completed_with_errors only when errors are allowed', () => {
    expect(isSuccess('completed')).toBe(true);
    expect(isSuccess('completed_with_errors')).toBe(false);
    expect(isSuccess('completed_with_errors', true)).toBe(true);
    expect(isFailure('completed_with_errors')).toBe(true);
    expect(isFailure('completed_with_errors', true)).toBe(false);
  });
  it('every status the service sends has one meaning', () => {
    expect(['failed', 'expired', 'delete-request'].map(outcomeOf)).toEqual(['failure', 'failure', 'failure']);
    expect(['pending', 'running', 'in-progress', 'in_progress', 'transferring', 'pre_request'].every(isInProgress)).toBe(true);
    expect(['completed', 'completed_with_errors', 'failed', 'expired'].every(isFinished)).toBe(true);
    expect(isFinished('running')).toBe(false);
    expect(outcomeOf('cancelled')).toBe('unknown');
  });
});
