// A backup's files and the sizes their transfer is held to (src/backups/files.ts, size.ts):
// the bounds of an exact, a rounded and a missing size; the last path segment of a name;
// which record file a key of the download answer is; which files `--file` names; and
// filesOf: the record's own signed URLs, else POST /backups/{id}/download with the record's
// sizes and storage paths paired to the answer's bare names. Written for the survivors of
// `npm run mutate` on both files (issue 31).
import { describe, expect, it } from 'vitest';
import { exactSize, sizeBounds } from '../../src/backups/size.js';
import { baseName, filesNamed, filesOf, recordFileFor } from '../../src/backups/files.js';
import type { ApiResponse, Client, RequestSpec } from '../../src/contract/context.js';
import type { Backup } from '../../src/backups/record.js';

describe('sizeBounds and exactSize', () => {
  it('an exact size: its length, and nothing else', () => {
    expect(sizeBounds('744 bytes')).toStrictEqual({ size: 744 });
    expect(sizeBounds(744)).toStrictEqual({ size: 744 });
    expect(sizeBounds(0)).toStrictEqual({ size: 0 });
    expect(sizeBounds('0 bytes')).toStrictEqual({ size: 0 });
    expect(exactSize('744 bytes')).toBe(744);
    expect(exactSize(0)).toBe(0);
  });

  it('a rounded size: the range both readings allow and each reading, no exact length', () => {
    const b = sizeBounds('1.5 KB');
    // 1.45-1.55 KB: 1485-1587 in 1024s, 1450-1550 in 1000s.
    expect(b).toStrictEqual({
      minSize: 1450,
      maxSize: 1587,
      sizeReadings: [
        { unit: 1024, bytes: 1536, min: 1485, max: 1587 },
        { unit: 1000, bytes: 1500, min: 1450, max: 1550 },
      ],
    });
    expect(exactSize('1.5 KB')).toBeUndefined();
    // "0 KB" rounds from 0 up to half a KB: still a range, not an exact 0.
    expect(sizeBounds('0 KB')).toStrictEqual({ minSize: 0, maxSize: 512, sizeReadings: [
      { unit: 1024, bytes: 0, min: 0, max: 512 },
      { unit: 1000, bytes: 0, min: 0, max: 500 },
    ] });
    expect(exactSize('0 KB')).toBeUndefined();
  });

  it('no size, or one that is not a size: no bounds at all', () => {
    for (const none of [undefined, null, '', 'lots', '12 parsecs', '1.5 bytes', -1, 1.5, {}]) {
      expect(sizeBounds(none), String(none)).toStrictEqual({});
      expect(exactSize(none), String(none)).toBeUndefined();
    }
  });
});

describe('baseName', () => {
  it('the last segment of a path, with either slash, ignoring a trailing one', () => {
    expect(baseName('test.sql.gz')).toBe('test.sql.gz');
    expect(baseName('a/21-01/test.sql.gz')).toBe('test.sql.gz');
    expect(baseName('a\\21-01\\test.sql.gz')).toBe('test.sql.gz');
    expect(baseName('a/b/')).toBe('b');
    expect(baseName('/a//b')).toBe('b');
  });

  it('a name with no segment at all is kept as it is', () => {
    expect(baseName('')).toBe('');
    expect(baseName('/')).toBe('/');
    expect(baseName('\\\\')).toBe('\\\\');
  });
});

describe('recordFileFor', () => {
  it('the file of the same name first, even when another file ends in that name', () => {
    const listed = [{ name: 'x/one.tar', n: 1 }, { name: 'one.tar', n: 2 }];
    expect(recordFileFor(listed, 'one.tar')).toBe(listed[1]);
    expect(recordFileFor(listed, 'x/one.tar')).toBe(listed[0]);
  });

  it('else the one file with that last segment, on either side; none when several or none', () => {
    const listed = [{ name: 'a/21-01/test.sql.gz' }, { name: 'x/one.tar' }, { name: 'y/one.tar' }];
    expect(recordFileFor(listed, 'test.sql.gz')).toBe(listed[0]);
    expect(recordFileFor(listed, 'other/21-01/test.sql.gz')).toBe(listed[0]);
    expect(recordFileFor(listed, 'one.tar')).toBeUndefined();
    expect(recordFileFor(listed, 'two.tar')).toBeUndefined();
    expect(recordFileFor([], 'two.tar')).toBeUndefined();
  });
});

describe('filesNamed (--file)', () => {
  const files = [
    { name: 'test.sql.gz', recordName: 'a/21-01/test.sql.gz' },
    { name: 'x/one.tar' },
    { name: 'y/one.tar' },
    { name: 'one.tar.sha256' },
  ];

  it('the full name or the record\'s full name: that file alone', () => {
    expect(filesNamed(files, 'x/one.tar')).toEqual([files[1]]);
    expect(filesNamed(files, 'test.sql.gz')).toEqual([files[0]]);
    expect(filesNamed(files, 'a/21-01/test.sql.gz')).toEqual([files[0]]);
  });

  it('else every file whose last segment it is (several: for the caller to refuse)', () => {
    expect(filesNamed(files, 'one.tar')).toEqual([files[1], files[2]]);
    expect(filesNamed(files, 'nothing')).toEqual([]);
    expect(filesNamed([{ name: 'one.tar', recordName: 'z/one.tar' }, { name: 'w/one.tar' }], 'one.tar')).toEqual([{ name: 'one.tar', recordName: 'z/one.tar' }]);
  });

  it('the last segment of the record\'s name or of the answer\'s name, either one', () => {
    const renamed = [{ name: 'dl/test.sql.gz', recordName: 'store/21-01/backup.sql.gz' }];
    expect(filesNamed(renamed, 'backup.sql.gz')).toEqual(renamed);
    expect(filesNamed(renamed, 'test.sql.gz')).toEqual(renamed);
    expect(filesNamed(renamed, '21-01')).toEqual([]);
  });
});

/** A client that answers POST /backups/{id}/download with `body`, and remembers what it was asked. */
function fakeClient(body: unknown) {
  const asked: Array<{ req: RequestSpec; opts?: { signal?: AbortSignal } }> = [];
  const client: Client = {
    async request(req, opts) {
      asked.push({ req, opts });
      return { status: 200, headers: {}, body } satisfies ApiResponse;
    },
    pages() {
      throw new Error('not used');
    },
    async close() {},
  };
  return { client, asked };
}

const backup = (files: unknown, id = 'b-1'): Backup => ({ id, files }) as Backup;

describe('filesOf', () => {
  it('every record file has a signed URL: those, with each stated size\'s bounds, and no request', async () => {
    const { client, asked } = fakeClient({ data: { 'test.sql.gz': 'https://other' } });
    const files = await filesOf(client, backup([
      { name: 'a/test.sql.gz', url: 'https://s/1', size: '744 bytes' },
      { name: 'b/site.tar', url: 'https://s/2', size: '1.5 KB' },
      { name: 'c/notes.txt', url: 'https://s/3' },
    ]));
    expect(asked).toEqual([]);
    expect(files).toStrictEqual([
      { name: 'a/test.sql.gz', url: 'https://s/1', stated: '744 bytes', size: 744 },
      { name: 'b/site.tar', url: 'https://s/2', stated: '1.5 KB', ...sizeBounds('1.5 KB') },
      { name: 'c/notes.txt', url: 'https://s/3', stated: undefined },
    ]);
  });

  it('a record entry that is not a file (no name) is passed over', async () => {
    const { client, asked } = fakeClient({});
    const files = await filesOf(client, backup([null, { size: 3 }, { name: 7, url: 'https://s/0' }, { name: 'a.sql', url: 'https://s/1', size: 3 }]));
    expect(asked).toEqual([]);
    expect(files).toStrictEqual([{ name: 'a.sql', url: 'https://s/1', stated: 3, size: 3 }]);
  });

  it('one file without a URL: the download answer, asked once with the id in the path and the caller\'s signal', async () => {
    const { client, asked } = fakeClient({ data: { 'test.sql.gz': 'https://dl/1', 'site.tar': 'https://dl/2' } });
    const signal = new AbortController().signal;
    const files = await filesOf(client, backup([
      { name: 'store/21-01/test.sql.gz', url: 'https://s/1', size: '744 bytes' },
      { name: 'site.tar', url: '', size: '1.5 KB' },
    ], 'b 1/2'), signal);
    expect(asked).toHaveLength(1);
    expect(asked[0]!.req).toStrictEqual({ method: 'POST', path: '/backups/b%201%2F2/download' });
    expect(asked[0]!.opts).toStrictEqual({ signal });
    expect(files).toStrictEqual([
      // The answer's bare name, the record's storage path as recordName, and its stated size.
      { name: 'test.sql.gz', url: 'https://dl/1', stated: '744 bytes', recordName: 'store/21-01/test.sql.gz', size: 744 },
      // The same name in both: no recordName.
      { name: 'site.tar', url: 'https://dl/2', stated: '1.5 KB', ...sizeBounds('1.5 KB') },
    ]);
  });

  it('a URL that is not text is no URL: the download answer is asked', async () => {
    const { client, asked } = fakeClient({ data: { 'a.sql': 'https://dl/a' } });
    const files = await filesOf(client, backup([{ name: 'a.sql', url: 42, size: 3 }]));
    expect(asked).toHaveLength(1);
    expect(files).toStrictEqual([{ name: 'a.sql', url: 'https://dl/a', stated: 3, size: 3 }]);
  });

  it('no files in the record: the download answer\'s, without sizes; a URL that is not text is passed over', async () => {
    const { client, asked } = fakeClient({ data: { 'a.sql': 'https://dl/a', 'b.sql': null, 'c.sql': 5, 'd.tar': 'https://dl/d' } });
    for (const files of [undefined, null, [], 'files']) {
      asked.length = 0;
      expect(await filesOf(client, backup(files))).toStrictEqual([
        { name: 'a.sql', url: 'https://dl/a', stated: undefined },
        { name: 'd.tar', url: 'https://dl/d', stated: undefined },
      ]);
      expect(asked).toHaveLength(1);
    }
  });

  it('a download answer with no data (or no body): no files', async () => {
    for (const body of [undefined, {}, { data: null }, 'text']) {
      const { client } = fakeClient(body);
      expect(await filesOf(client, backup([{ name: 'a.sql', size: 3 }]))).toStrictEqual([]);
    }
  });

  it('an answer name matching several record files by last segment: no record file, so no size', async () => {
    const { client } = fakeClient({ data: { 'one.tar': 'https://dl/1' } });
    const files = await filesOf(client, backup([{ name: 'x/one.tar', size: 10 }, { name: 'y/one.tar', size: 20 }]));
    expect(files).toStrictEqual([{ name: 'one.tar', url: 'https://dl/1', stated: undefined }]);
  });
});
