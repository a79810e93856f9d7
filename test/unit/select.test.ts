// Which backups verify and restore-test read (src/pipeline/select.ts), against a fake
// service: the selection flags, the backup id of another job, --latest, --since and
// --sample, and each chosen backup's files and signed URLs. Written for the survivors of
// `npm run mutate` on select.ts (issue 31), which was tested only through the built CLI.
import { describe, expect, it } from 'vitest';
import type { Context, RequestSpec } from '../../src/contract/context.js';
import { UsageError } from '../../src/errors.js';
import { NameRef } from '../../src/cli/resolve.js';
import { pipelineBackup, readSelection, selectBackups } from '../../src/pipeline/select.js';
import type { Backup } from '../../src/backups/record.js';

const day = (d: number) => `2026-11-${String(d).padStart(2, '0')}T03:00:00.000000Z`;
const file = (name: string, url?: string) => ({ name, size: '1 KB', ...(url ? { url } : {}) });
const rec = (d: number, status = 'completed', files: unknown[] = [file(`f${d}.tar.gz`)]) => ({ id: `b${d}`, job_id: 'job-1', status, created_at: day(d), files });

/** A context whose client answers each request with `answer(spec)`; what was sent, with its options. */
function fakeCtx(answer: (spec: RequestSpec) => unknown, pages: unknown[][] = []) {
  const sent: Array<{ spec: RequestSpec; opts: unknown }> = [];
  const signal = new AbortController().signal;
  const client = {
    request: async (spec: RequestSpec, opts?: unknown) => {
      sent.push({ spec, opts });
      return { status: 200, headers: {}, body: answer(spec) };
    },
    async *pages(spec: RequestSpec, opts?: unknown) {
      sent.push({ spec, opts });
      for (const records of pages) yield { records, raw: { data: records } };
    },
    close: async () => {},
  };
  return { ctx: { client: async () => client, signal } as unknown as Context, sent, signal };
}

describe('readSelection', () => {
  it('each way alone, and the text the output shows', () => {
    expect(readSelection({ backup: 'b9' })).toEqual({ backup: 'b9', latest: false, since: undefined, sample: undefined, text: 'backup b9' });
    expect(readSelection({ latest: true })).toEqual({ backup: undefined, latest: true, since: undefined, sample: undefined, text: 'latest' });
    expect(readSelection({})).toEqual({ backup: undefined, latest: true, since: undefined, sample: undefined, text: 'latest' });
    expect(readSelection({ since: day(3) })).toEqual({ backup: undefined, latest: false, since: day(3), sample: undefined, text: `since ${day(3)}` });
    expect(readSelection({ sample: 2 })).toEqual({ backup: undefined, latest: false, since: undefined, sample: 2, text: 'sample 2' });
    expect(readSelection({ since: day(3), sample: 2 }).text).toBe(`since ${day(3)}, sample 2`);
  });

  it('values of the wrong type are not a selection', () => {
    expect(readSelection({ backup: 5, since: 7, sample: '3', latest: 'yes' })).toEqual({ backup: undefined, latest: true, since: undefined, sample: undefined, text: 'latest' });
  });

  it('a backup still to be looked up (the start of its id, before the handler\'s check sends anything) counts as given', () => {
    const ref = new NameRef('backups', 'abcdef12', '<backup>');
    expect(() => readSelection({ backup: ref, latest: true }, 'verify')).toThrow(UsageError);
    expect(() => readSelection({ backup: ref, since: day(1) }, 'verify')).toThrow(UsageError);
    expect(readSelection({ backup: ref })).toMatchObject({ backup: undefined, latest: false });
    expect(readSelection({ backup: null })).toMatchObject({ latest: true });
  });

  it('two ways at once is a usage error that shows the three, with the command\'s name', () => {
    for (const values of [{ backup: 'b1', latest: true }, { backup: 'b1', since: day(1) }, { backup: 'b1', sample: 2 }, { latest: true, sample: 2 }, { latest: true, since: day(1) }]) {
      let err: unknown;
      try {
        readSelection(values, 'restore-test');
      } catch (e) {
        err = e;
      }
      expect(err, JSON.stringify(values)).toBeInstanceOf(UsageError);
      expect((err as Error).message).toBe('give one selection: a backup id, --latest, or --since/--sample');
      expect((err as UsageError).details).toEqual([
        '  backupctl restore-test <job> --latest',
        '  backupctl restore-test <job> <backup-id>',
        '  backupctl restore-test <job> --since 7d [--sample 3]',
      ]);
    }
    // verify is the command named when none is given.
    expect(() => readSelection({ backup: 'b1', latest: true })).toThrow(expect.objectContaining({ details: expect.arrayContaining(['  backupctl verify <job> --latest']) }));
    // --since with --sample is one way.
    expect(() => readSelection({ since: day(1), sample: 2 })).not.toThrow();
  });
});

describe('selectBackups', () => {
  it('a backup id: GET /backups/{id}, with the signal; of another job, refused', async () => {
    const { ctx, sent, signal } = fakeCtx(() => ({ data: rec(4) }));
    expect((await selectBackups(ctx, 'job-1', readSelection({ backup: 'b 4' }))).map((b) => b.id)).toEqual(['b4']);
    expect(sent[0]).toEqual({ spec: { method: 'GET', path: '/backups/b%204' }, opts: { signal } });
    const other = fakeCtx(() => ({ data: { ...rec(4), job_id: 'job-2' } }));
    await expect(selectBackups(other.ctx, 'job-1', readSelection({ backup: 'b4' }))).rejects.toThrow();
  });

  it('--latest asks for the newest completed backup; none is an empty list', async () => {
    const { ctx, sent } = fakeCtx(() => ({ data: [rec(5)] }));
    expect((await selectBackups(ctx, 'job-1', readSelection({ latest: true }))).map((b) => b.id)).toEqual(['b5']);
    expect(sent[0]!.spec.query).toMatchObject({ status: 'completed', sort: '-created_at' });
    expect(await selectBackups(fakeCtx(() => ({ data: [] })).ctx, 'job-1', readSelection({}))).toEqual([]);
  });

  it('--since: successful backups with files since then, newest first, through the signal', async () => {
    const pages = [[rec(6), rec(5, 'failed'), rec(4, 'completed', []), rec(3, 'completed_with_errors')], [rec(2), rec(1)]];
    const { ctx, sent, signal } = fakeCtx(() => undefined, pages);
    const picked = await selectBackups(ctx, 'job-1', readSelection({ since: day(2) }));
    expect(picked.map((b) => b.id)).toEqual(['b6', 'b2']);
    expect(sent[0]!.opts).toEqual({ all: true, signal });
    // No --since: every successful backup with files.
    expect((await selectBackups(fakeCtx(() => undefined, pages).ctx, 'job-1', readSelection({ sample: 9 }))).map((b) => b.id)).toEqual(['b6', 'b2', 'b1']);
  });

  it('--sample N draws N at random, shown in the listed order; N or more found are all kept', async () => {
    const pages = [[rec(6), rec(5), rec(4), rec(3), rec(2), rec(1)]];
    // The draws: index 0.99 of 6 (b1), then 0 of 5 (b6), then 0.5 of 4 left (b5 b4 b3 b2: b3).
    const draws = [0.99, 0, 0.5];
    const picked = await selectBackups(fakeCtx(() => undefined, pages).ctx, 'job-1', readSelection({ sample: 3 }), () => draws.shift()!);
    expect(picked.map((b) => b.id)).toEqual(['b6', 'b3', 'b1']);
    expect(draws).toEqual([]);
    const all = await selectBackups(fakeCtx(() => undefined, pages).ctx, 'job-1', readSelection({ sample: 6 }), () => {
      throw new Error('no draw when every backup is kept');
    });
    expect(all).toHaveLength(6);
  });
});

describe('pipelineBackup', () => {
  it('URLs in the record: taken as they are, no request; the record\'s fields carried', async () => {
    const { ctx, sent } = fakeCtx(() => undefined);
    const backup = { ...rec(7, 'completed', [file('a.tar.gz', 'https://s/a'), { name: 7 }, null, file('a.sha256', 'https://s/s')]), encryption_key: 'k1' } as unknown as Backup;
    const before = Date.now();
    const p = await pipelineBackup(ctx, backup);
    expect(sent).toEqual([]);
    expect(p).toMatchObject({ id: 'b7', job_id: 'job-1', created_at: day(7), status: 'completed', encrypted: true, encryption_key: 'k1' });
    expect(p.files).toEqual([
      { name: 'a.tar.gz', url: 'https://s/a', size: '1 KB' },
      { name: 'a.sha256', url: 'https://s/s', size: '1 KB' },
    ]);
    expect(p.urls_at).toBeGreaterThanOrEqual(before);
    expect(p.urls_at).toBeLessThanOrEqual(Date.now());
  });

  it('a file without a URL: POST /backups/{id}/download; names paired by their last segment; the sizes stated', async () => {
    const { ctx, sent, signal } = fakeCtx(() => ({ data: { 'x.tar.gz': 'https://s/x', 'x.sha256': 'https://s/h', odd: 5 } }));
    const backup = { id: 'b 8', status: 'completed', files: [file('backups/job/x.tar.gz', 'https://s/old'), file('backups/job/x.sha256')] } as unknown as Backup;
    const p = await pipelineBackup(ctx, backup);
    expect(sent).toEqual([{ spec: { method: 'POST', path: '/backups/b%208/download' }, opts: { signal } }]);
    expect(p.files).toEqual([
      { name: 'x.tar.gz', url: 'https://s/x', size: '1 KB' },
      { name: 'x.sha256', url: 'https://s/h', size: '1 KB' },
    ]);
    expect(p).toMatchObject({ job_id: null, created_at: null, encrypted: false, encryption_key: null });
  });

  it('no files in the record, an empty URL, an empty key, an answer without data', async () => {
    // No files listed: the download endpoint is asked; an answer without data gives none.
    const bare = fakeCtx(() => ({}));
    const none = await pipelineBackup(bare.ctx, { id: 'b9', files: 'no', encryption_key: '' } as unknown as Backup);
    expect(bare.sent.map((x) => x.spec.method)).toEqual(['POST']);
    expect(none).toMatchObject({ files: [], status: null, encrypted: false, encryption_key: '' });
    const empty = fakeCtx(() => ({ data: { 'y.gz': 'https://s/y' } }));
    const p = await pipelineBackup(empty.ctx, { id: 'b10', files: [file('y.gz', '')] } as unknown as Backup);
    expect(empty.sent).toHaveLength(1);
    expect(p.files).toEqual([{ name: 'y.gz', url: 'https://s/y', size: '1 KB' }]);
    // A URL that is not text is no URL; an answer without a body gives no files.
    const odd = fakeCtx(() => undefined);
    const q = await pipelineBackup(odd.ctx, { id: 'b11', files: [{ name: 'z.gz', url: 5 }] } as unknown as Backup);
    expect(odd.sent.map((x) => x.spec.path)).toEqual(['/backups/b11/download']);
    expect(q.files).toEqual([]);
  });
});
