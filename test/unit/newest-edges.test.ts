// The newest backups of a job (src/backups/newest.ts) when the service does what it likes with
// `sort`: the survivors of `npm run mutate` on newest.ts (issue 31), and verify --since over a
// service that answers oldest first.
import { describe, expect, it } from 'vitest';
import type { Client, Page, RequestSpec } from '../../src/contract/context.js';
import { backupsSince, newestBackup, newestBackups, newestBackupsRequest, newestFirst, newestSuccess, newestSuccessRequests, NEWEST_PAGE } from '../../src/backups/newest.js';

const day = (d: number) => `2026-11-${String(d).padStart(2, '0')}T03:00:00.000000Z`;
const rec = (d: number, status = 'completed') => ({ id: `b${d}`, status, created_at: day(d), files: [{ name: `f${d}.tar.gz` }] });

/** A client whose pages are `pages` (the answer to `pages()`), and whose request answers `body`. */
function fakeClient(o: { pages?: unknown[][]; body?: unknown }): Client & { sent: RequestSpec[]; options: unknown[]; read: () => number } {
  const sent: RequestSpec[] = [];
  const options: unknown[] = [];
  let read = 0;
  return {
    sent,
    options,
    read: () => read,
    request: async (spec: RequestSpec, opts?: unknown) => {
      sent.push(spec);
      options.push(opts);
      return { status: 200, headers: {}, body: o.body };
    },
    async *pages(spec: RequestSpec, opts?: unknown) {
      sent.push(spec);
      options.push(opts);
      for (const records of o.pages ?? []) {
        read++;
        yield { records, raw: { data: records } } as Page;
      }
    },
    close: async () => {},
  };
}

describe('the request', () => {
  it('asks newest first, a page of NEWEST_PAGE, the status only when given', () => {
    expect(newestBackupsRequest('job 1')).toStrictEqual({ method: 'GET', path: '/jobs/job%201/backups', query: { sort: '-created_at', page_size: NEWEST_PAGE } });
    expect(newestBackupsRequest('j', { status: 'completed', pageSize: 100 }).query).toEqual({ sort: '-created_at', page_size: 100, status: 'completed' });
    expect(NEWEST_PAGE).toBe(15);
  });
});

describe('newest first whatever the service sent', () => {
  it('orders by the field; records without it follow in the order sent; odd records do not throw', () => {
    const out = newestFirst([rec(1), { id: 'x' }, rec(3), null, rec(2), { id: 'y', created_at: 'garbage' }] as unknown[], 'created_at');
    expect(out.map((r) => (r as { id?: string } | null)?.id ?? null)).toEqual(['b3', 'b2', 'b1', 'x', null, 'y']);
    expect(newestFirst([{ id: 'a', started_at: day(1) }, { id: 'b', started_at: day(2) }], 'started_at').map((r) => r.id)).toEqual(['b', 'a']);
  });

  it('newestBackups and newestBackup sort an oldest-first answer; an answer without data is none', async () => {
    const c = fakeClient({ body: { data: [rec(1), rec(2), rec(3)] } });
    expect(((await newestBackups(c, 'j')) as Array<{ id: string }>).map((b) => b.id)).toEqual(['b3', 'b2', 'b1']);
    expect((await newestBackup(c, 'j', { status: 'completed' }))?.id).toBe('b3');
    expect(c.sent.at(-1)!.query).toMatchObject({ status: 'completed' });
    expect(await newestBackups(fakeClient({ body: undefined }), 'j')).toEqual([]);
    expect(await newestBackups(fakeClient({ body: { data: 'no' } }), 'j')).toEqual([]);
    expect(await newestBackup(fakeClient({ body: { data: [] } }), 'j')).toBeUndefined();
  });

  it('the last success: completed only, or with errors when allowed; a record without a status is none', () => {
    const records = [rec(5, 'completed_with_errors'), rec(4, 'failed'), null, rec(3), { id: 'n', created_at: day(6) }];
    expect((newestSuccess(records) as { id: string }).id).toBe('b3');
    expect((newestSuccess(records, true) as { id: string }).id).toBe('b5');
    expect(newestSuccess([{ id: 'n', status: 7, created_at: day(1) }])).toBeUndefined();
    expect(newestSuccess([null, undefined])).toBeUndefined();
  });

  it('the requests for the last success: completed only unless errors are allowed', () => {
    expect(newestSuccessRequests('j').map((r) => r.query?.status)).toEqual(['completed']);
    expect(newestSuccessRequests('j', true).map((r) => r.query?.status)).toEqual(['completed', 'completed_with_errors']);
  });

  it('hands the caller\'s signal to the request (Ctrl-C stops the lookup)', async () => {
    const signal = new AbortController().signal;
    const c = fakeClient({ body: { data: [rec(1)] } });
    await newestBackups(c, 'j', { signal });
    await newestBackup(c, 'j', { signal });
    expect(c.options).toEqual([{ signal }, { signal }]);
  });
});

describe('backups since a time (verify --since)', () => {
  const since = Date.parse(day(3));

  it('newest first: stops at the first page that reaches back past `since`, and keeps `since` itself', async () => {
    const c = fakeClient({ pages: [[rec(6), rec(5)], [rec(4), rec(3), rec(2)], [rec(1)]] });
    expect((await backupsSince(c, 'j', since)).map((b) => b.id)).toEqual(['b6', 'b5', 'b4', 'b3']);
    // The third page (older still) is never asked for.
    expect(c.read()).toBe(2);
    // Every page, 100 at a time, with the caller's signal.
    expect(c.sent[0]!.query).toMatchObject({ sort: '-created_at', page_size: 100 });
    expect(c.options[0]).toEqual({ all: true, signal: undefined });
    const signal = new AbortController().signal;
    const d = fakeClient({ pages: [] });
    await backupsSince(d, 'j', since, signal);
    expect(d.options[0]).toEqual({ all: true, signal });
  });

  it('two backups created in the same second are still newest first: the walk ends as early', async () => {
    const twin = { ...rec(5), id: 'b5-twin' };
    const c = fakeClient({ pages: [[rec(6), rec(5)], [twin, rec(2)], [rec(1)]] });
    expect((await backupsSince(c, 'j', since)).map((b) => b.id).sort()).toEqual(['b5', 'b5-twin', 'b6']);
    expect(c.read()).toBe(2);
  });

  it('a record without a time between timed ones does not hide that the sort was ignored', async () => {
    const c = fakeClient({ pages: [[rec(4), { id: 'untimed' }, rec(6), rec(1)], [rec(5)]] });
    expect((await backupsSince(c, 'j', since)).map((b) => b.id)).toEqual(['b6', 'b5', 'b4', 'untimed']);
    expect(c.read()).toBe(2);
  });

  it('oldest first (the sort ignored): every page is read and nothing newer is missed', async () => {
    const c = fakeClient({ pages: [[rec(1), rec(2)], [rec(3), rec(4)], [rec(5), rec(6)]] });
    expect((await backupsSince(c, 'j', since)).map((b) => b.id)).toEqual(['b6', 'b5', 'b4', 'b3']);
  });

  it('a record without a time is kept (it may be new); a null record is skipped', async () => {
    const c = fakeClient({ pages: [[{ id: 'untimed' }, null, rec(5), rec(1)]] });
    expect((await backupsSince(c, 'j', since)).map((b) => b.id)).toEqual(['b5', 'untimed']);
  });
});
