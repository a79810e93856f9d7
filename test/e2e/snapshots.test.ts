// snapshots as a user meets them: the built CLI against the emulator, asserting
// the request that went out (method, path, query with bracket tags), the bytes
// on stdout and the exit code.
import { beforeEach, describe, expect, it } from 'vitest';
import { apiFetch, withEmulatorCli } from '../helpers/emulator.js';

interface Snapshot {
  id: number;
  name: string;
  status: string;
  fail_reason?: string;
  size: string;
  tags: Record<string, number>;
  started_at: string;
  completed_at: string | null;
  credentials: { id: number; name: string } | null;
  provider: { name: string; pretty_name: string } | null;
  resource: { id: number; type: string } | null;
}

const { emu, cli, sent } = withEmulatorCli();

/** What the service answers, read past the CLI. */
async function serviceList(query = ''): Promise<Snapshot[]> {
  const res = await apiFetch(emu, `/v1/snapshots${query}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: Snapshot[] }).data;
}
async function serviceSnapshot(id: number): Promise<{ status: number; data?: Snapshot }> {
  const res = await apiFetch(emu, `/v1/snapshots/${id}`);
  return { status: res.status, data: res.status === 200 ? ((await res.json()) as { data: Snapshot }).data : undefined };
}

/** The TSV line the default columns give: set tag names, the provider's name, the resource's type and id (raw, issue 16 §2.17). */
function tsvLine(s: Snapshot): string {
  const tags = Object.entries(s.tags)
    .filter(([, v]) => v === 1)
    .map(([k]) => k)
    .join(',');
  return [
    s.id, s.name, s.provider?.name ?? '', s.status, s.size, tags, s.started_at, s.completed_at ?? '',
    s.credentials?.name ?? '', s.resource?.type ?? '', s.resource?.id ?? '',
  ].join('\t');
}

beforeEach(() => {
  emu.clearRequests();
});

describe('snapshots list', () => {
  it('--json prints exactly the data of the first page; tsv one line per snapshot', async () => {
    const r = await cli(['snapshots', 'list', '--json']);
    expect(r.code).toBe(0);
    expect(sent()).toHaveLength(1);
    expect(sent()[0]).toMatchObject({ method: 'GET', path: '/v1/snapshots', query: {}, body: undefined });
    const page = await serviceList();
    expect(page.length).toBeGreaterThan(0);
    expect(r.stdout).toBe(`${JSON.stringify(page)}\n`);

    const tsv = await cli(['snapshots', 'list', '-o', 'tsv']);
    expect(tsv.code).toBe(0);
    expect(tsv.stdout).toBe(page.map((s) => `${tsvLine(s)}\n`).join(''));
  });

  it('sends every filter, tags in bracket form with 1 and 0, and -q prints the ids that matched', async () => {
    const r = await cli([
      'snapshots', 'list',
      '--provider', 'cloud_a',
      '--status', 'completed',
      '--tags', 'daily,weekly',
      '--without-tags', 'manual',
      '--started-since', '2020-01-01T00:00:00Z',
      '--completed-since', '2020-01-02T00:00:00Z',
      '--sort', '-size',
      '--page-size', '100',
      '-q',
    ]);
    expect(r.code).toBe(0);
    expect(sent()).toHaveLength(1);
    expect(sent()[0]!.method).toBe('GET');
    expect(sent()[0]!.path).toBe('/v1/snapshots');
    expect(sent()[0]!.query).toEqual({
      provider: 'cloud_a',
      status: 'completed',
      'tags[daily]': '1',
      'tags[weekly]': '1',
      'tags[manual]': '0',
      started_since: '2020-01-01T00:00:00.000Z',
      completed_since: '2020-01-02T00:00:00.000Z',
      sort: '-size',
      page_size: '100',
    });
    const expected = await serviceList(
      '?provider=cloud_a&status=completed&tags[daily]=1&tags[weekly]=1&tags[manual]=0&started_since=2020-01-01T00:00:00Z&completed_since=2020-01-02T00:00:00Z&sort=-size&page_size=100',
    );
    expect(expected.length).toBeGreaterThan(0);
    expect(r.stdout).toBe(expected.map((s) => `${s.id}\n`).join(''));
  });

  it('--columns picks the extra fail_reason; the table shows the headers', async () => {
    const failed = (await serviceList('?status=failed&page_size=100'))[0]!;
    const r = await cli(['snapshots', 'list', '--status', 'failed', '--page-size', '100', '--columns', 'id,fail_reason', '-o', 'tsv']);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe(`${failed.id}\t${failed.fail_reason}`);

    const table = await cli(['snapshots', 'list', '-o', 'table']);
    expect(table.code).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+Name\s+Provider\s+Status\s+Size\s+Tags\s+Started\s+Completed\s+Account\s+Resource$/);
  });

  it('refuses a bad status or tag: exit 2, the flag named, nothing sent', async () => {
    const status = await cli(['snapshots', 'list', '--status', 'in-progress']);
    expect(status.code).toBe(2);
    expect(status.stderr).toContain('--status');
    expect(status.stderr).toContain('pre_request, in_progress, expired, failed, completed');
    const tags = await cli(['snapshots', 'list', '--without-tags', 'yearly']);
    expect(tags.code).toBe(2);
    expect(tags.stderr).toContain('--without-tags');
    const since = await cli(['snapshots', 'list', '--started-since', 'yesterday']);
    expect(since.code).toBe(2);
    expect(since.stderr).toContain('--started-since');
    expect(sent()).toEqual([]);
  });
});

describe('snapshots get', () => {
  it('--json prints exactly the data; tsv shows the fail reason of a failed snapshot; -q the id', async () => {
    const failed = (await serviceList('?status=failed&page_size=100'))[0]!;
    const r = await cli(['snapshots', 'get', String(failed.id), '--json']);
    expect(r.code).toBe(0);
    expect(sent()).toHaveLength(1);
    expect(sent()[0]).toMatchObject({ method: 'GET', path: `/v1/snapshots/${failed.id}`, query: {}, body: undefined });
    expect(r.stdout).toBe(`${JSON.stringify((await serviceSnapshot(failed.id)).data)}\n`);

    const tsv = await cli(['snapshots', 'get', String(failed.id), '-o', 'tsv']);
    expect(tsv.stdout).toBe(`${tsvLine(failed)}\t${failed.fail_reason}\n`);
    const q = await cli(['snapshots', 'get', String(failed.id), '-q']);
    expect(q.stdout).toBe(`${failed.id}\n`);

    const table = await cli(['snapshots', 'get', String(failed.id), '-o', 'table']);
    expect(table.stdout).toMatch(new RegExp(`^Provider:\\s+${failed.provider!.pretty_name}$`, 'm'));
    expect(table.stdout).toMatch(new RegExp(`^Fail reason:\\s+${failed.fail_reason}$`, 'm'));
  });

  it('an id that is not a number is exit 2 and sends nothing; an unknown id is exit 5', async () => {
    const bad = await cli(['snapshots', 'get', 'abc']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('<id>');
    expect(sent()).toEqual([]);
    const missing = await cli(['snapshots', 'get', '999999']);
    expect(missing.code).toBe(5);
  });
});

describe('snapshots delete', () => {
  it('without --yes and without a terminal: exit 2, nothing sent', async () => {
    const target = (await serviceList())[0]!;
    const r = await cli(['snapshots', 'delete', String(target.id)]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`Delete snapshot ${target.id}`);
    expect(r.stderr).toContain('--yes');
    expect(r.stdout).toBe('');
    expect(sent()).toEqual([]);
    expect((await serviceSnapshot(target.id)).status).toBe(200);
  });

  it('--yes sends the DELETE, confirms on stderr, and the snapshot is gone', async () => {
    const target = (await serviceList())[1]!;
    const r = await cli(['snapshots', 'delete', String(target.id), '--yes', '-o', 'table']);
    expect(r.code).toBe(0);
    expect(sent()).toHaveLength(1);
    expect(sent()[0]).toMatchObject({ method: 'DELETE', path: `/v1/snapshots/${target.id}`, query: {}, body: undefined });
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`Deleted snapshot ${target.id}.`);
    expect((await serviceSnapshot(target.id)).status).toBe(404);
  });

  it('-q prints the id acted on', async () => {
    const target = (await serviceList())[2]!;
    const r = await cli(['snapshots', 'delete', String(target.id), '--yes', '-q']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${target.id}\n`);
    expect(sent().map((q) => `${q.method} ${q.path}`)).toEqual([`DELETE /v1/snapshots/${target.id}`]);
  });
});
