// The per-backup marks (src/state/marks.ts) that status and report judge the newest backup
// by: the service key, reading a missing or broken file, what record() keeps (the last run,
// the last conclusive one, since when a backup is not-tested), pruning, and newestMarkAt.
// Written for the survivors of `npm run mutate` on marks.ts (issue 31): it was tested only
// through the built CLI.
import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { ConfigError } from '../../src/errors.js';
import { KEEP_PER_JOB, MARKS_FILE, MarksStore, newestMarkAt, serviceKey, type Mark, type MarkedBackup } from '../../src/state/marks.js';

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(path.join(tmpdir(), 'backupctl-marks-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const mark = (at: string, state: Mark['state'], extra: Partial<Mark> = {}): Mark => ({ at, state, reason: null, exit_code: state === 'passed' ? 0 : 11, ...extra });
const S = 'http://svc account:abc';

describe('serviceKey', () => {
  it('the base URL without trailing slashes or spaces, and the first 16 hex digits of the token\'s SHA-256', () => {
    const fp = createHash('sha256').update('12|tok.en').digest('hex').slice(0, 16);
    expect(serviceKey(' https://api.example/// ', '12|tok.en')).toBe(`https://api.example account:${fp}`);
    expect(serviceKey('https://api.example', undefined)).toBe('https://api.example account:no-token');
    expect(serviceKey('https://api.example', '')).toBe('https://api.example account:no-token');
    expect(serviceKey('https://api.example', 'a')).not.toBe(serviceKey('https://api.example', 'b'));
  });
});

describe('reading the marks', () => {
  it('no file: no marks, and nothing is written by reading', async () => {
    const dir = tempDir();
    const store = await MarksStore.open(dir, S);
    expect(store.file).toBe(path.join(dir, MARKS_FILE));
    expect(store.service).toBe(S);
    expect(store.ofJob('j')).toEqual([]);
    expect(store.backup('b1')).toBeUndefined();
    expect(existsSync(store.file)).toBe(false);
  });

  it('a broken file or another version is a configuration error that leaves it as it is', async () => {
    for (const text of ['{not json', JSON.stringify({ version: 2, services: {} }), JSON.stringify({ version: 1, services: null }), JSON.stringify({ version: 1 }), 'null']) {
      const dir = tempDir();
      writeFileSync(path.join(dir, MARKS_FILE), text);
      let err: unknown;
      try {
        await MarksStore.open(dir, S);
      } catch (e) {
        err = e;
      }
      expect(err, text).toBeInstanceOf(ConfigError);
      expect((err as Error).message).toMatch(new RegExp(`^the marks ${path.join(dir, MARKS_FILE).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} are broken \\(.+\\); they were left as they are$`));
      expect((err as ConfigError).details).toEqual(['  Move the file aside to start new marks (what verify and restore-test found so far is then forgotten).']);
      expect(readFileSync(path.join(dir, MARKS_FILE), 'utf8')).toBe(text);
    }
  });

  it('a file that cannot be read (a folder) is a configuration error naming it', async () => {
    const dir = tempDir();
    mkdirSync(path.join(dir, MARKS_FILE));
    await expect(MarksStore.open(dir, S)).rejects.toThrow(`cannot read the marks ${path.join(dir, MARKS_FILE)}: `);
  });

  it('only this service\'s marks; unreadable records and marks are left out', async () => {
    const dir = tempDir();
    const good = mark('2026-11-20T02:00:00Z', 'passed');
    writeFileSync(
      path.join(dir, MARKS_FILE),
      JSON.stringify({
        version: 1,
        services: {
          [S]: {
            backups: {
              b1: { job_id: 'j', created_at: '2026-11-20T01:00:00Z', verify: { last: good, conclusive: { at: 5, state: 'passed' } }, restore_test: { last: { at: 'x', state: 'great' } } },
              b2: { job_id: 7, verify: { last: good } },
              b3: null,
              b4: { job_id: 'j', created_at: 9, verify: { last: { ...good, at: '2026-11-21T02:00:00Z' }, conclusive: good } },
              b5: { job_id: 'other', created_at: '2026-11-22T01:00:00Z' },
            },
          },
          'http://else account:zzz': { backups: { b9: { job_id: 'j', created_at: '2026-11-23T01:00:00Z' } } },
        },
      }),
    );
    const store = await MarksStore.open(dir, S);
    expect(store.backup('b1')).toEqual({ job_id: 'j', created_at: '2026-11-20T01:00:00Z', verify: { last: good, conclusive: null }, restore_test: undefined });
    expect(store.backup('b2')).toBeUndefined();
    expect(store.backup('b3')).toBeUndefined();
    expect(store.backup('toString')).toBeUndefined();
    expect(store.ofJob('j').map((b) => [b.backup_id, b.created_at])).toEqual([
      ['b1', '2026-11-20T01:00:00Z'],
      ['b4', null],
    ]);
    expect((await MarksStore.open(dir, 'http://nobody account:no-token')).ofJob('j')).toEqual([]);
    // A service whose entry is null has no marks.
    writeFileSync(path.join(dir, MARKS_FILE), JSON.stringify({ version: 1, services: { [S]: null } }));
    expect((await MarksStore.open(dir, S)).ofJob('j')).toEqual([]);
  });

  it('a job\'s backups newest created first whatever the file\'s order; those without a time last', async () => {
    const dir = tempDir();
    const m = { last: mark('2026-11-20T02:00:00Z', 'passed'), conclusive: null };
    const b = (created_at: string | null) => ({ job_id: 'j', created_at, verify: m });
    writeFileSync(
      path.join(dir, MARKS_FILE),
      JSON.stringify({ version: 1, services: { [S]: { backups: { old: b('2026-11-01T00:00:00Z'), none: b(null), new: b('2026-11-09T00:00:00Z'), mid: b('2026-11-05T00:00:00Z') } } } }),
    );
    expect((await MarksStore.open(dir, S)).ofJob('j').map((x) => x.backup_id)).toEqual(['new', 'mid', 'old', 'none']);
  });
});

describe('recording', () => {
  it('writes the file (0600), keeps other services, and reads back what it wrote', async () => {
    const dir = path.join(tempDir(), 'state', 'deeper');
    const store = await MarksStore.open(dir, S);
    await store.record('verify', []);
    expect(existsSync(store.file)).toBe(false);
    const m = mark('2026-11-20T02:00:00Z', 'passed', { total_seconds: 3 });
    await store.record('verify', [{ backupId: 'b1', jobId: 'j', createdAt: '2026-11-20T01:00:00Z', mark: m }]);
    expect(statSync(store.file).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const data = JSON.parse(readFileSync(store.file, 'utf8'));
    expect(data).toEqual({ version: 1, services: { [S]: { backups: { b1: { job_id: 'j', created_at: '2026-11-20T01:00:00Z', verify: { last: m, conclusive: m } } } } } });
    expect(store.backup('b1')?.verify).toEqual({ last: m, conclusive: m });
    // Another service recorded afterwards leaves this one's marks in place.
    const other = await MarksStore.open(dir, 'http://else account:zzz');
    await other.record('restore_test', [{ backupId: 'b1', jobId: 'j', createdAt: null, mark: m }]);
    expect((await MarksStore.open(dir, S)).backup('b1')?.verify?.last).toEqual(m);
    expect((await MarksStore.open(dir, S)).backup('b1')?.restore_test).toBeUndefined();
  });

  it('a state folder that cannot be made is a configuration error naming it, and nothing is written', async () => {
    const dir = path.join(tempDir(), 'state');
    const store = await MarksStore.open(dir, S);
    // Between the read and the write, a file took the folder's place.
    writeFileSync(dir, 'x');
    await expect(store.record('verify', [{ backupId: 'b1', jobId: 'j', createdAt: null, mark: mark('2026-11-20T02:00:00Z', 'passed') }])).rejects.toThrow(
      new RegExp(`^cannot create the state folder ${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `),
    );
    expect(readFileSync(dir, 'utf8')).toBe('x');
  });

  it('not-tested keeps the last conclusive mark and says since when; a conclusive run ends the streak', async () => {
    const store = await MarksStore.open(tempDir(), S);
    const rec = (kind: 'verify' | 'restore_test', m: Mark, createdAt: string | null = '2026-11-20T01:00:00Z') =>
      store.record(kind, [{ backupId: 'b1', jobId: 'j', createdAt, mark: m }]);
    const failed = mark('2026-11-20T02:00:00Z', 'failed', { reason: 'bad' });
    await rec('verify', failed);
    await rec('verify', mark('2026-11-21T02:00:00Z', 'not-tested', { since: 'ignored' }));
    expect(store.backup('b1')?.verify).toEqual({ last: mark('2026-11-21T02:00:00Z', 'not-tested', { since: '2026-11-21T02:00:00Z' }), conclusive: failed });
    await rec('verify', mark('2026-11-22T02:00:00Z', 'not-tested'), null);
    expect(store.backup('b1')?.verify?.last.since).toBe('2026-11-21T02:00:00Z');
    await rec('verify', mark('2026-11-22T14:00:00Z', 'not-tested'));
    expect(store.backup('b1')?.verify?.last).toMatchObject({ at: '2026-11-22T14:00:00Z', since: '2026-11-21T02:00:00Z' });
    expect(store.backup('b1')?.verify?.conclusive).toEqual(failed);
    // The created_at given before is kept when a later run has none.
    expect(store.backup('b1')?.created_at).toBe('2026-11-20T01:00:00Z');
    const passed = mark('2026-11-23T02:00:00Z', 'passed', { since: 'stale' } as Partial<Mark>);
    await rec('verify', passed);
    expect(store.backup('b1')?.verify?.last).toEqual(mark('2026-11-23T02:00:00Z', 'passed'));
    expect(store.backup('b1')?.verify?.last).not.toHaveProperty('since');
    // The other kind is separate: its first not-tested has no conclusive mark.
    await rec('restore_test', mark('2026-11-24T02:00:00Z', 'not-tested'));
    expect(store.backup('b1')?.restore_test?.conclusive).toBeNull();
    expect(store.backup('b1')?.verify?.last.state).toBe('passed');
    // After a conclusive run a new streak of not-tested starts at its own time.
    await rec('verify', mark('2026-11-25T02:00:00Z', 'not-tested'));
    expect(store.backup('b1')?.verify?.last.since).toBe('2026-11-25T02:00:00Z');
  });

  it(`keeps the ${KEEP_PER_JOB} newest marked backups of a job, other jobs untouched`, async () => {
    expect(KEEP_PER_JOB).toBe(200);
    const store = await MarksStore.open(tempDir(), S);
    const at = (i: number) => new Date(Date.UTC(2026, 0, 1) + i * 3600_000).toISOString();
    const inputs = Array.from({ length: KEEP_PER_JOB + 3 }, (_, i) => ({ backupId: `b${i}`, jobId: 'j', createdAt: at(i), mark: mark(at(i), 'passed') }));
    await store.record('verify', [{ backupId: 'x', jobId: 'other', createdAt: at(-100), mark: mark(at(0), 'passed') }]);
    await store.record('verify', inputs);
    const kept = store.ofJob('j').map((b) => b.backup_id);
    expect(kept).toHaveLength(KEEP_PER_JOB);
    expect(kept[0]).toBe(`b${KEEP_PER_JOB + 2}`);
    expect(kept.at(-1)).toBe('b3');
    expect(store.backup('b2')).toBeUndefined();
    expect(store.ofJob('other').map((b) => b.backup_id)).toEqual(['x']);
  });

  it('pruning puts backups without a time first to go, and steps over an unreadable entry', async () => {
    const dir = tempDir();
    const at = (i: number) => new Date(Date.UTC(2026, 0, 1) + i * 3600_000).toISOString();
    const backups: Record<string, unknown> = { broken: null, untimed: { job_id: 'j', created_at: null, verify: { last: mark(at(0), 'passed'), conclusive: null } } };
    // Newest first in the file, so that the file's order is not the answer.
    for (let i = KEEP_PER_JOB; i >= 1; i--) backups[`b${i}`] = { job_id: 'j', created_at: at(i), verify: { last: mark(at(i), 'passed'), conclusive: null } };
    writeFileSync(path.join(dir, MARKS_FILE), JSON.stringify({ version: 1, services: { [S]: { backups } } }));
    const store = await MarksStore.open(dir, S);
    await store.record('verify', [{ backupId: 'b0', jobId: 'j', createdAt: at(-5), mark: mark(at(0), 'passed') }]);
    const kept = store.ofJob('j').map((b) => b.backup_id);
    expect(kept).toHaveLength(KEEP_PER_JOB);
    expect(kept).not.toContain('untimed');
    expect(kept).not.toContain('b0');
    expect(kept[0]).toBe(`b${KEEP_PER_JOB}`);
  });
});

describe('newestMarkAt', () => {
  const marks: MarkedBackup[] = [
    { backup_id: 'a', job_id: 'j', created_at: null, verify: { last: mark('2026-11-22T00:00:00Z', 'not-tested'), conclusive: mark('2026-11-20T00:00:00Z', 'passed') } },
    { backup_id: 'b', job_id: 'j', created_at: null, verify: { last: mark('2026-11-21T00:00:00Z', 'failed'), conclusive: mark('2026-11-21T00:00:00Z', 'failed') } },
    { backup_id: 'c', job_id: 'j', created_at: null, restore_test: { last: mark('2026-11-25T00:00:00Z', 'passed'), conclusive: null } },
  ];
  it('the newest of the last runs or of the conclusive ones, of one state when given', () => {
    expect(newestMarkAt(marks, 'verify', 'last')).toBe('2026-11-22T00:00:00Z');
    expect(newestMarkAt(marks, 'verify', 'conclusive')).toBe('2026-11-21T00:00:00Z');
    expect(newestMarkAt(marks, 'verify', 'conclusive', 'passed')).toBe('2026-11-20T00:00:00Z');
    expect(newestMarkAt(marks, 'verify', 'last', 'passed')).toBeUndefined();
    expect(newestMarkAt(marks, 'restore_test', 'conclusive')).toBeUndefined();
    expect(newestMarkAt(marks, 'restore_test', 'last')).toBe('2026-11-25T00:00:00Z');
    expect(newestMarkAt([], 'verify', 'last')).toBeUndefined();
  });
});
