// The rules of the marks (docs/status.md, "Marks"), each on its own, beside the e2e tests that run verify and
// restore-test (issue 45: a planted bug in the marks was caught by a single e2e test). Which mark wins (of a
// backup: the latest conclusive one, a later not-tested attempt beside it; of a job: its newest backup's, a
// mark of an older backup shown and never judged), how marks are keyed (service: base URL and a fingerprint of
// the token; then backup id), and what is kept (both kinds, the created_at, since when a backup is untested,
// the 200 newest marked backups of each job). Each case reads back what the store wrote, as status does.
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { judgeMarks, untestedSince } from '../../src/fleet/marks.js';
import { KEEP_PER_JOB, MarksStore, newestMarkAt, serviceKey, type Mark, type MarkKind, type MarkState } from '../../src/state/marks.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const stateDir = () => {
  const d = mkdtempSync(path.join(tmpdir(), 'backupctl-marks-rules-'));
  dirs.push(d);
  return d;
};

const DAY = 86400_000;
const T0 = Date.parse('2026-11-20T00:00:00Z');
const iso = (h: number) => new Date(T0 + h * 3600_000).toISOString();
const mark = (h: number, state: MarkState, reason: string | null = null): Mark => ({ at: iso(h), state, reason, exit_code: state === 'passed' ? 0 : state === 'failed' ? 11 : 6 });
const SVC = serviceKey('https://api.example', 'team-token');

/** One store, and a recorder of one backup of job j. */
async function store(dir = stateDir(), service = SVC) {
  const s = await MarksStore.open(dir, service);
  const rec = (kind: MarkKind, backupId: string, m: Mark, createdAt: string | null = iso(-24), jobId = 'j') => s.record(kind, [{ backupId, jobId, createdAt, mark: m }]);
  return { s, rec, dir };
}

describe('which mark of a backup wins', () => {
  it.each([
    // [the attempts in the order they ran, the state shown, the attempt beside it]
    [['passed', 'failed'], 'failed', null],
    [['failed', 'passed'], 'passed', null],
    [['failed', 'not-tested'], 'failed', 'not-tested'],
    [['passed', 'not-tested', 'not-tested'], 'passed', 'not-tested'],
    [['not-tested'], 'not-tested', null],
    [['unchecked', 'not-tested', 'failed'], 'failed', null],
    [['failed', 'unchecked'], 'unchecked', null],
  ] as [MarkState[], MarkState, MarkState | null][])('%j: %s is shown', async (states, wins, beside) => {
    const { s, rec } = await store();
    for (const [i, st] of states.entries()) await rec('verify', 'b1', mark(i, st));
    const j = judgeMarks(s.ofJob('j'), 'b1', T0 + DAY, 30 * DAY);
    expect(j.verify).toMatchObject({ backup_id: 'b1', of_newest: true, state: wins, last_attempt: beside ? { state: beside } : null });
    expect(j.failed).toBe(wins === 'failed');
    // The file holds the same: the latest attempt, and the latest conclusive one (null when none looked at the bytes).
    const last = states.length - 1;
    const conclusive = states.map((st, i) => [st, i] as const).filter(([st]) => st !== 'not-tested').at(-1);
    expect(s.backup('b1')!.verify).toEqual({ last: expect.objectContaining({ at: iso(last), state: states[last] }), conclusive: conclusive ? expect.objectContaining({ at: iso(conclusive[1]), state: conclusive[0] }) : null });
  });

  it('verify and restore-test are separate: one kind never takes the other\'s place, nor loses it', async () => {
    const { s, rec } = await store();
    await rec('verify', 'b1', mark(0, 'failed', 'bad bytes'));
    await rec('restore_test', 'b1', mark(1, 'passed'));
    await rec('restore_test', 'b1', mark(2, 'not-tested', 'no engine'));
    const b = s.backup('b1')!;
    expect(b.verify).toEqual({ last: mark(0, 'failed', 'bad bytes'), conclusive: mark(0, 'failed', 'bad bytes') });
    expect(b.restore_test?.conclusive).toEqual(mark(1, 'passed'));
    expect(b.restore_test?.last).toMatchObject({ state: 'not-tested', since: iso(2) });
    const j = judgeMarks(s.ofJob('j'), 'b1', T0 + DAY, 30 * DAY);
    expect([j.verify?.state, j.restore_test?.state, j.failed]).toEqual(['failed', 'passed', true]);
  });
});

describe('which mark of a job wins: its newest backup\'s, whatever an older backup says', () => {
  it('a newer passed mark on an older backup does not clear the newest backup\'s failure', async () => {
    const { s, rec } = await store();
    await rec('verify', 'new', mark(0, 'failed', 'truncated'), iso(-1));
    await rec('verify', 'old', mark(5, 'passed'), iso(-48));
    const j = judgeMarks(s.ofJob('j'), 'new', T0 + DAY, 30 * DAY);
    expect(j.verify).toMatchObject({ backup_id: 'new', of_newest: true, state: 'failed' });
    expect(j.failed).toBe(true);
  });

  it('a failed mark on an older backup does not fail the job; with no mark of the newest, the latest older one is shown, not judged', async () => {
    const { s, rec } = await store();
    await rec('verify', 'older', mark(0, 'failed'), iso(-72));
    await rec('verify', 'old', mark(3, 'passed'), iso(-48));
    await rec('verify', 'oldest', mark(1, 'unchecked'), iso(-96));
    const j = judgeMarks(s.ofJob('j'), 'new', T0 + DAY, 30 * DAY);
    expect(j.verify).toMatchObject({ backup_id: 'old', of_newest: false, state: 'passed' });
    expect(j.failed).toBe(false);
    expect(j.warnings).toEqual([]);
    // The latest older mark is the latest by time of the attempt, not by the backup's age.
    await rec('verify', 'oldest', mark(9, 'failed'), iso(-96));
    expect(judgeMarks(s.ofJob('j'), 'new', T0 + DAY, 30 * DAY).verify).toMatchObject({ backup_id: 'oldest', of_newest: false, state: 'failed' });
    expect(judgeMarks(s.ofJob('j'), 'new', T0 + DAY, 30 * DAY).failed).toBe(false);
  });

  it('newestMarkAt: the newest time over the job\'s backups, of the last attempts or the conclusive ones', async () => {
    const { s, rec } = await store();
    await rec('verify', 'a', mark(1, 'passed'));
    await rec('verify', 'b', mark(4, 'failed'), iso(-2));
    await rec('verify', 'a', mark(6, 'not-tested'));
    const all = s.ofJob('j');
    expect(newestMarkAt(all, 'verify', 'last')).toBe(iso(6));
    expect(newestMarkAt(all, 'verify', 'conclusive')).toBe(iso(4));
    expect(newestMarkAt(all, 'verify', 'conclusive', 'passed')).toBe(iso(1));
    expect(newestMarkAt(all, 'restore_test', 'last')).toBeUndefined();
  });
});

describe('keyed by service, then by backup', () => {
  it('the same backup id under another service (another URL, another token) is another backup; a trailing slash is the same service', async () => {
    const dir = stateDir();
    const a = await store(dir, serviceKey('https://api.example', 'team-token'));
    await a.rec('verify', 'b1', mark(0, 'failed'));
    const otherToken = await store(dir, serviceKey('https://api.example', 'other-token'));
    const otherUrl = await store(dir, serviceKey('https://api2.example', 'team-token'));
    expect(otherToken.s.backup('b1')).toBeUndefined();
    expect(otherUrl.s.backup('b1')).toBeUndefined();
    await otherToken.rec('verify', 'b1', mark(1, 'passed'));
    // Each service's marks stay its own, in the one file.
    const again = await store(dir, serviceKey('https://api.example/', 'team-token'));
    expect(again.s.backup('b1')?.verify?.last.state).toBe('failed');
    expect((await store(dir, serviceKey('https://api.example', 'other-token'))).s.backup('b1')?.verify?.last.state).toBe('passed');
    // The token itself is never written, only its fingerprint.
    expect(readFileSync(path.join(dir, 'marks.json'), 'utf8')).not.toContain('team-token');
  });

  it('two backups of one job keep their own marks; a backup recorded under another job moves to it', async () => {
    const { s, rec } = await store();
    await rec('verify', 'b1', mark(0, 'failed'));
    await rec('verify', 'b2', mark(1, 'passed'));
    expect(s.backup('b1')?.verify?.last.state).toBe('failed');
    expect(s.backup('b2')?.verify?.last.state).toBe('passed');
    await rec('restore_test', 'b2', mark(2, 'passed'), iso(-24), 'k');
    expect(s.ofJob('j').map((b) => b.backup_id)).toEqual(['b1']);
    expect(s.ofJob('k').map((b) => b.backup_id)).toEqual(['b2']);
    expect(s.backup('b2')?.verify?.last.state).toBe('passed');
  });
});

describe('what is kept', () => {
  it('the created_at of an earlier run when a later one has none; a new one when given', async () => {
    const { s, rec } = await store();
    await rec('verify', 'b1', mark(0, 'passed'), iso(-30));
    await rec('restore_test', 'b1', mark(1, 'passed'), null);
    expect(s.backup('b1')?.created_at).toBe(iso(-30));
    await rec('verify', 'b1', mark(2, 'passed'), iso(-29));
    expect(s.backup('b1')?.created_at).toBe(iso(-29));
  });

  it('since: the start of a backup\'s run of not-tested attempts, kept across them, started again after a conclusive one', async () => {
    const { s, rec } = await store();
    await rec('verify', 'b1', mark(0, 'passed'));
    await rec('verify', 'b1', mark(1, 'not-tested'));
    await rec('verify', 'b1', mark(2, 'not-tested'));
    await rec('verify', 'b1', mark(3, 'not-tested'));
    expect(s.backup('b1')?.verify?.last).toMatchObject({ at: iso(3), since: iso(1) });
    expect(untestedSince(s.ofJob('j'))).toBe(Date.parse(iso(1)));
    await rec('verify', 'b1', mark(4, 'failed'));
    expect(s.backup('b1')?.verify?.last).not.toHaveProperty('since');
    expect(untestedSince(s.ofJob('j'))).toBeUndefined();
    await rec('verify', 'b1', mark(5, 'not-tested'));
    expect(s.backup('b1')?.verify?.last.since).toBe(iso(5));
    // A job untested for longer than its max age gets its own warning; shorter, none.
    expect(judgeMarks(s.ofJob('j'), 'b1', Date.parse(iso(5)) + 2 * DAY, DAY).warnings.map((w) => w.kind)).toContain('not-tested-too-long');
    expect(judgeMarks(s.ofJob('j'), 'b1', Date.parse(iso(5)) + DAY / 2, DAY).warnings.map((w) => w.kind)).not.toContain('not-tested-too-long');
  });

  it(`the ${KEEP_PER_JOB} newest marked backups of each job (by created_at, whatever order they were marked in); other jobs keep theirs`, async () => {
    expect(KEEP_PER_JOB).toBe(200);
    const { s } = await store();
    // Marked newest first, then the oldest last: the order of marking is not the rule.
    const ids = Array.from({ length: KEEP_PER_JOB + 5 }, (_, i) => KEEP_PER_JOB + 4 - i);
    await s.record('verify', ids.map((i) => ({ backupId: `b${i}`, jobId: 'j', createdAt: iso(i), mark: mark(i, 'passed') })));
    await s.record('verify', [{ backupId: 'k1', jobId: 'k', createdAt: iso(-1000), mark: mark(0, 'failed') }]);
    const kept = s.ofJob('j').map((b) => b.backup_id);
    expect(kept).toHaveLength(KEEP_PER_JOB);
    expect(kept[0]).toBe(`b${KEEP_PER_JOB + 4}`);
    expect(kept.at(-1)).toBe('b5');
    for (const gone of ['b0', 'b4']) expect(s.backup(gone)).toBeUndefined();
    expect(s.ofJob('k').map((b) => b.backup_id)).toEqual(['k1']);
    // Read back from the file, as the next run does.
    const reread = await MarksStore.open(path.dirname(s.file), SVC);
    expect(reread.ofJob('j')).toHaveLength(KEEP_PER_JOB);
    expect(reread.backup('b5')?.verify?.last.state).toBe('passed');
  });

  it(`a job's ${KEEP_PER_JOB} are counted per service: another service's backups of the same job id do not push them out`, async () => {
    const dir = stateDir();
    const mine = await store(dir);
    await mine.rec('verify', 'mine', mark(0, 'failed'), iso(-5000));
    const other = await MarksStore.open(dir, serviceKey('https://other.example', 'x'));
    await other.record('verify', Array.from({ length: KEEP_PER_JOB + 1 }, (_, i) => ({ backupId: `o${i}`, jobId: 'j', createdAt: iso(i), mark: mark(i, 'passed') })));
    expect((await MarksStore.open(dir, SVC)).backup('mine')?.verify?.last.state).toBe('failed');
  });
});
