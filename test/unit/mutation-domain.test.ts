// Unit tests that kill one-line bugs in the modules `npm run mutate` covers (issue 31, "Tests
// that could not catch what they guard"): each pins a result a backup owner sees: a verdict,
// the newest backup, a bound, a redacted token, a size unit. In-process, so a mutant of src/
// is seen (the e2e tests run the built CLI and are not in the mutation run).
import { describe, expect, it } from 'vitest';
import { isFailure, isFinished, isInProgress, isSuccess, outcomeOf, statusWord, successStatuses } from '../../src/backups/status.js';
import { newestBackupsRequest, newestFirst, newestSuccess, newestSuccessRequests } from '../../src/backups/newest.js';
import { exactSize, sizeBounds } from '../../src/backups/size.js';
import { baseName, filesNamed, recordFileFor } from '../../src/backups/files.js';
import { diskReserve, gzipRatioRefusal, GZIP_RATIO_FLOOR } from '../../src/pipeline/bounds.js';
import { readSelection, selectBackups } from '../../src/pipeline/select.js';
import { redactBody, redactHeaders } from '../../src/http/redact.js';
import { parseStatedSize, statedSizeFit, telltaleUnit } from '../../src/util/stated-size.js';
import type { Context, RequestSpec } from '../../src/contract/context.js';

describe('what a status means', () => {
  it.each([
    ['completed', 'success', 'completed'],
    ['completed_with_errors', 'partial', 'completed_with_errors'],
    ['failed', 'failure', 'failed'],
    ['expired', 'failure', 'expired'],
    ['delete-request', 'failure', 'expired'],
    ['pending', 'running', 'in_progress'],
    ['transferring', 'running', 'in_progress'],
    ['pre_request', 'running', 'in_progress'],
    ['running', 'running', 'in_progress'],
    ['starting', 'running', 'in_progress'],
    ['queued', 'running', 'in_progress'],
    ['in_progress', 'running', 'in_progress'],
    ['in-progress', 'running', 'in_progress'],
    ['', 'unknown', undefined],
    [undefined, 'unknown', undefined],
    ['exploded', 'unknown', undefined],
    [null, 'unknown', undefined],
  ] as const)('%s is %s, counted as %s', (status, outcome, word) => {
    expect(outcomeOf(status)).toBe(outcome);
    expect(statusWord(status)).toBe(word);
  });

  it('success, failure, in progress and finished, with and without errors allowed', () => {
    expect([isSuccess('completed'), isSuccess('completed_with_errors'), isSuccess('completed_with_errors', true), isSuccess('failed', true)]).toEqual([true, false, true, false]);
    expect([isFailure('failed'), isFailure('completed_with_errors'), isFailure('completed_with_errors', true), isFailure('completed'), isFailure('running')]).toEqual([true, true, false, false, false]);
    expect([isInProgress('running'), isInProgress('completed'), isInProgress(undefined)]).toEqual([true, false, false]);
    expect([isFinished('completed'), isFinished('completed_with_errors'), isFinished('expired'), isFinished('running'), isFinished('weird')]).toEqual([true, true, true, false, false]);
    expect(successStatuses()).toEqual(['completed']);
    expect(successStatuses(true)).toEqual(['completed', 'completed_with_errors']);
  });
});

describe('the newest backup, whatever order the service sends', () => {
  const oldestFirst = [
    { id: 'b1', status: 'completed', created_at: '2026-11-20T01:00:00Z' },
    { id: 'b2', status: 'completed', created_at: '2026-11-21T01:00:00Z' },
    { id: 'b3', status: 'failed', created_at: '2026-11-22T01:00:00Z' },
    { id: 'b0', status: 'completed' },
  ];

  it('sorts newest first and puts records without a time last', () => {
    expect(newestFirst(oldestFirst, 'created_at').map((b) => b.id)).toEqual(['b3', 'b2', 'b1', 'b0']);
  });

  it('the last success skips a newer failure; completed_with_errors only when allowed', () => {
    expect(newestSuccess(oldestFirst)?.id).toBe('b2');
    const partial = [...oldestFirst, { id: 'b4', status: 'completed_with_errors', created_at: '2026-11-23T01:00:00Z' }];
    expect(newestSuccess(partial)?.id).toBe('b2');
    expect(newestSuccess(partial, true)?.id).toBe('b4');
    expect(newestSuccess([{ id: 'x', status: 'failed', created_at: '2026-11-23T01:00:00Z' }])).toBeUndefined();
  });

  it('asks for the job backups sorted -created_at, of one status when given', () => {
    expect(newestBackupsRequest('j 1')).toEqual({ method: 'GET', path: '/jobs/j%201/backups', query: { sort: '-created_at', page_size: 15 } });
    expect(newestBackupsRequest('j', { status: 'completed', pageSize: 3 }).query).toEqual({ sort: '-created_at', page_size: 3, status: 'completed' });
    expect(newestSuccessRequests('j', true).map((r) => r.query?.status)).toEqual(['completed', 'completed_with_errors']);
  });

  it('--latest picks the newest completed backup when the service answers oldest first', async () => {
    const sent: RequestSpec[] = [];
    const client = {
      request: async (spec: RequestSpec) => {
        sent.push(spec);
        return { status: 200, headers: {}, body: { data: oldestFirst.filter((b) => b.status === 'completed') } };
      },
    };
    const ctx = { client: async () => client, signal: new AbortController().signal } as unknown as Context;
    const picked = await selectBackups(ctx, 'job-1', readSelection({ latest: true }));
    expect(picked.map((b) => b.id)).toEqual(['b2']);
    expect(sent[0]!.query).toMatchObject({ sort: '-created_at', status: 'completed' });
  });

  it('two ways of selecting at once is a usage error; none means latest', () => {
    expect(() => readSelection({ backup: 'b1', latest: true })).toThrow(/give one selection/);
    expect(readSelection({})).toMatchObject({ latest: true, text: 'latest' });
    expect(readSelection({ since: '2026-11-01T00:00:00Z', sample: 3 }).text).toBe('since 2026-11-01T00:00:00Z, sample 3');
  });
});

describe('the token never shows', () => {
  it.each(['Bearer 12|abcDEF0123456789xyz', 'Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl-_', 'Bearer a/b+c=d.e-f~g'])('%s is masked whole', (value) => {
    const out = redactHeaders({ Authorization: value, 'Proxy-Authorization': value.replace('Bearer', 'Basic') });
    expect(out).toEqual({ Authorization: 'Bearer ****', 'Proxy-Authorization': 'Basic ****' });
  });

  it('cookies are masked; other headers kept; an undefined header left out', () => {
    expect(redactHeaders({ cookie: 'sid=1', 'set-cookie': ['a=1', 'b=2'], accept: 'application/json', gone: undefined })).toEqual({
      cookie: '****',
      'set-cookie': '****',
      accept: 'application/json',
    });
  });

  it('secret-named body fields are masked, credentials whole, config passwords too', () => {
    const out = redactBody({ name: 'n', token: 't0k', password: 'pw', credentials: { user: 'u', key: 'k' }, config: { mysql_password: 'x', host: 'h' }, list: [{ secret: 's' }], empty: '' });
    expect(out).toEqual({ name: 'n', token: '****', password: '****', credentials: { user: '****', key: '****' }, config: { mysql_password: '****', host: 'h' }, list: [{ secret: '****' }], empty: '' });
    expect(JSON.stringify(out)).not.toMatch(/t0k|"pw"|"k"|"x"|"s"/);
  });
});

describe('the bounds against a hostile backup', () => {
  it('a gzip is judged past the floor only, and refused past the ratio', () => {
    expect(gzipRatioRefusal(1, GZIP_RATIO_FLOOR, 200)).toBeUndefined();
    expect(gzipRatioRefusal(1, GZIP_RATIO_FLOOR + 1, 200)).toMatch(/expands more than 200 times its size .*BACKUPCTL_VERIFY_MAX_RATIO/);
    const compressed = Math.ceil((GZIP_RATIO_FLOOR + 1) / 200);
    expect(gzipRatioRefusal(compressed, compressed * 200, 200)).toBeUndefined();
    expect(gzipRatioRefusal(compressed, compressed * 200 + 1, 200)).toBeDefined();
  });

  it('the disk reserve is 1 GiB, or 5% of a small file system', () => {
    expect(diskReserve(100 * 1024 ** 3)).toBe(1024 ** 3);
    expect(diskReserve(10 * 1024 ** 3)).toBe(Math.floor(10 * 1024 ** 3 * 0.05));
  });
});

describe('stated sizes', () => {
  it('"1.25 KB" allows both readings, each within half its last digit', () => {
    const s = parseStatedSize('1.25 KB')!;
    expect(s.readings.map((r) => [r.unit, r.min, r.max])).toEqual([
      [1024, 1275, 1285],
      [1000, 1245, 1255],
    ]);
    expect([s.bytes, s.min, s.max]).toEqual([1280, 1245, 1285]);
    expect(telltaleUnit(s, 1250)).toBe(1000);
    expect(telltaleUnit(s, 1280)).toBe(1024);
    expect(telltaleUnit(s, 1260)).toBeUndefined();
    expect(statedSizeFit(s, 1260)).toBeUndefined();
    expect(statedSizeFit(s, 1250)?.unit).toBe(1000);
  });

  it('KiB is binary only; bytes and numbers are exact; anything else is no size', () => {
    expect(parseStatedSize('2 KiB')!.readings.map((r) => r.unit)).toEqual([1024]);
    expect(sizeBounds('744 bytes')).toEqual({ size: 744 });
    expect(exactSize(744)).toBe(744);
    expect(exactSize('12.5 MB')).toBeUndefined();
    expect(sizeBounds('12.5 MB')).toMatchObject({ minSize: Math.ceil(12.45 * 1000 ** 2), maxSize: Math.floor(12.55 * 1024 ** 2) });
    for (const bad of ['1.5 bytes', 'lots', '12 parsecs', -1, 1.5, null]) expect(parseStatedSize(bad), String(bad)).toBeUndefined();
  });
});

describe('the files of a backup', () => {
  it('pairs a bare name with a storage path, never one of several', () => {
    const listed = [{ name: 'a/21-01/test.sql.gz' }, { name: 'x/one.tar' }, { name: 'y/one.tar' }];
    expect(baseName('a\\b/c.gz')).toBe('c.gz');
    expect(recordFileFor(listed, 'test.sql.gz')?.name).toBe('a/21-01/test.sql.gz');
    expect(recordFileFor(listed, 'one.tar')).toBeUndefined();
    expect(filesNamed(listed, 'one.tar').map((f) => f.name)).toEqual(['x/one.tar', 'y/one.tar']);
    expect(filesNamed(listed, 'x/one.tar').map((f) => f.name)).toEqual(['x/one.tar']);
  });
});
