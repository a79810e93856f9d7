// Ids by a unique prefix and suggestions for a name that matches nothing (issue 25).
import { describe, expect, it } from 'vitest';
import { pickByName, resolvePrefix } from '../../src/cli/resolve.js';
import { CliError, UsageError } from '../../src/errors.js';
import { suggestNames } from '../../src/util/suggest.js';

const jobs = [
  { id: 'abcdef12-0000-4000-8000-000000000001', name: 'web-01 files' },
  { id: 'abcdef34-0000-4000-8000-000000000002', name: 'shop mysql' },
  { id: '12345678-0000-4000-8000-000000000003', name: 'abcdef' },
];

describe('a unique prefix of an id', () => {
  it('names the one record whose id starts with it; a name that equals it wins', () => {
    expect(pickByName(jobs, 'abcdef1', 'jobs').name).toBe('web-01 files');
    expect(pickByName(jobs, 'ABCDEF34', 'jobs').name).toBe('shop mysql');
    expect(pickByName(jobs, 'abcdef', 'jobs').name).toBe('abcdef');
  });

  it('an ambiguous prefix exits 2 listing the candidates, id and name', () => {
    const twins = jobs.slice(0, 2);
    let error: unknown;
    try {
      pickByName(twins, 'abcdef', 'jobs', '<job>');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).exitCode).toBe(2);
    expect((error as UsageError).message).toBe('"abcdef" (<job>) is the start of 2 jobs\' ids: give more of the id');
    expect((error as UsageError).details).toEqual([`  ${jobs[0]!.id}  web-01 files`, `  ${jobs[1]!.id}  shop mysql`]);
  });

  it('a backup prefix reads the backups of the job given, and lists the candidates when ambiguous', async () => {
    const asked: string[] = [];
    const client = {
      async *pages(req: { path: string }) {
        asked.push(req.path);
        yield { records: [{ id: 'ffee0011-0000-4000-8000-000000000001', status: 'completed', created_at: '2026-11-25T01:00:00Z' }, { id: 'ffee0022-0000-4000-8000-000000000002', status: 'failed', created_at: '2026-11-24T01:00:00Z' }], raw: {} };
      },
    };
    expect(await resolvePrefix(client as never, 'backups', 'ffee0022', { job: 'j1' })).toBe('ffee0022-0000-4000-8000-000000000002');
    expect(asked).toEqual(['/jobs/j1/backups']);
    await expect(resolvePrefix(client as never, 'backups', 'ffee00', { job: 'j1', label: '<backup>' })).rejects.toMatchObject({
      exitCode: 2,
      details: ['  ffee0011-0000-4000-8000-000000000001  completed  2026-11-25 01:00', '  ffee0022-0000-4000-8000-000000000002  failed  2026-11-24 01:00'],
    });
    await expect(resolvePrefix(client as never, 'backups', 'aaaaaa', { job: 'j1' })).rejects.toBeInstanceOf(CliError);
  });
});

describe('suggestNames', () => {
  const names = ['web-01 files', 'shop mysql', 'api postgres', 'archive files', 'marketing site'];
  it('offers names that start with, then contain, what was typed, then the nearest', () => {
    expect(suggestNames('web', names)).toEqual(['web-01 files']);
    expect(suggestNames('files', names)).toEqual(['web-01 files', 'archive files']);
    expect(suggestNames('shop-mysql', names)).toEqual(['shop mysql']);
    expect(suggestNames('api postgre', names)).toEqual(['api postgres']);
    expect(suggestNames('zzzzzz', names)).toEqual([]);
  });
});

describe('looksLikeIdPrefix', () => {
  it('takes 6 to 35 hex characters and dashes, never a whole UUID (that is the id itself, never looked up)', async () => {
    const { looksLikeIdPrefix } = await import('../../src/cli/resolve.js');
    expect(looksLikeIdPrefix('abcdef')).toBe(true);
    expect(looksLikeIdPrefix('abcdef12-0000')).toBe(true);
    expect(looksLikeIdPrefix('abcde')).toBe(false);
    expect(looksLikeIdPrefix('web-01')).toBe(false);
    expect(looksLikeIdPrefix('abcdef12-0000-4000-8000-000000000001')).toBe(false);
  });
});
