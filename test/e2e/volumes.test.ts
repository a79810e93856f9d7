// volumes as a user meets them: the droplet verbs on block volumes, with UUID
// ids and without host or secondary region. The built CLI against the
// emulator: the request sent, the bytes printed, the exit code, the state after.
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { apiFetch, withEmulatorCli } from '../helpers/emulator.js';

interface Volume {
  id: string;
  name: string;
  status: string;
  frequency: number;
  retention: Record<string, number>;
  timezone: string;
  run_offset: number;
  size: string;
  location: string;
  estimated_cost?: string;
  created_at: string;
  snapshots?: Snapshot[];
}
interface Snapshot {
  id: number;
  name: string;
  status: string;
  size: number;
  tags: Record<string, number>;
  started_at: string;
  completed_at: string | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** Seeded volumes by name; each test group changes its own. */
const ids: Record<string, string> = {};
const { emu, cli, sent } = withEmulatorCli();

async function serviceVolume(id: string): Promise<Volume> {
  const res = await apiFetch(emu, `/v1/cloud_i/volumes/${id}`);
  return ((await res.json()) as { data: Volume }).data;
}

beforeAll(async () => {
  const res = await apiFetch(emu, '/v1/cloud_i/volumes?page_size=100');
  for (const v of ((await res.json()) as { data: Volume[] }).data) ids[v.name] = v.id;
  expect(Object.keys(ids)).toEqual(expect.arrayContaining(['pgdata-fra1', 'uploads-fra1', 'scratch-ams3']));
});
beforeEach(() => {
  emu.clearRequests();
});

describe('volumes list', () => {
  it('prints the data array with --json, and TSV without a host column', async () => {
    const r = await cli(['volumes', 'list', '--json']);
    expect(r.code).toBe(0);
    expect(sent()).toHaveLength(1);
    expect(sent()[0]).toMatchObject({ method: 'GET', path: '/v1/cloud_i/volumes', query: {} });
    const volumes = JSON.parse(r.stdout) as Volume[];
    expect(volumes.map((v) => v.name)).toEqual(['pgdata-fra1', 'uploads-fra1', 'scratch-ams3']);
    for (const v of volumes) expect(v.id).toMatch(UUID);

    const tsv = await cli(['volumes', 'list', '-o', 'tsv']);
    // uploads-fra1 has no estimated_cost: an empty field keeps the columns in place.
    expect(tsv.stdout).toBe(
      volumes
        .map((v) =>
          // Raw values (issue 16 §2.17): the frequency in hours, the retention as four counts (no hourly here).
          [v.id, v.name, v.status, v.frequency, '', v.retention.daily, v.retention.weekly, v.retention.monthly,
            v.timezone, v.size, v.location, v.estimated_cost ?? '', v.created_at].join('\t') + '\n',
        )
        .join(''),
    );
    const table = await cli(['volumes', 'list', '-o', 'table']);
    expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+Name\s+Status\s+Frequency\s+Retention/);
    expect(table.stdout).not.toContain('Host');
  });

  it('sends the filters and sort; -q prints the UUIDs', async () => {
    const r = await cli([
      'volumes', 'list', '--name', 'fra1', '--status', 'active', '--modified-since', '2020-01-01T00:00:00Z', '--sort', '-size', '-q',
    ]);
    expect(r.code).toBe(0);
    expect(sent()[0]!.query).toEqual({ name: 'fra1', status: 'active', modified_since: '2020-01-01T00:00:00.000Z', sort: '-size', page_size: '100' });
    expect(r.stdout).toBe(`${ids['uploads-fra1']}\n${ids['pgdata-fra1']}\n`);
  });

  it('has no host filter or host sort: exit 2, nothing sent', async () => {
    const host = await cli(['volumes', 'list', '--host', '10.0.0.1']);
    expect(host.code).toBe(2);
    expect(host.stderr).toContain('--host');
    const sort = await cli(['volumes', 'list', '--sort', 'host']);
    expect(sort.code).toBe(2);
    expect(sort.stderr).toContain('--sort');
    expect(sort.stderr).toContain('id, name, size, created_at');
    expect(sent()).toEqual([]);
  });
});

describe('volumes get', () => {
  it('a value that is not a UUID is a name: looked up with the name filter, exit 5 when no volume has it', async () => {
    const r = await cli(['volumes', 'get', 'not-a-uuid']);
    expect(r.code).toBe(5);
    expect(r.stderr).toBe('error: no volume with the id or name "not-a-uuid"\n  See backupctl volumes list.\n');
    expect(r.stdout).toBe('');
    expect(sent()).toMatchObject([{ method: 'GET', path: '/v1/cloud_i/volumes', query: { name: 'not-a-uuid' } }]);
  });

  it('--json prints exactly the data with its snapshots; table, -q and 404', async () => {
    const id = ids['pgdata-fra1']!;
    const r = await cli(['volumes', 'get', id, '--json']);
    expect(r.code).toBe(0);
    expect(sent()[0]).toMatchObject({ method: 'GET', path: `/v1/cloud_i/volumes/${id}` });
    const shown = JSON.parse(r.stdout) as Volume;
    const service = await serviceVolume(id);
    expect(shown).toEqual(service);
    expect(shown.snapshots!.length).toBeGreaterThan(0);

    const table = await cli(['volumes', 'get', id, '-o', 'table']);
    expect(table.stdout).toMatch(new RegExp(`^ID:\\s+${id}$`, 'm'));
    expect(table.stdout).toMatch(/^Retention:\s+d7 w4 m3$/m);
    expect(table.stdout).toMatch(new RegExp(`^Snapshots:\\s+${service.snapshots!.length}$`, 'm'));
    expect(table.stdout).toMatch(/\nSnapshots\nID\s+Name\s+Status\s+Size\s+Tags\s+Started\s+Completed\n/);
    expect(table.stdout).not.toMatch(/^Host:/m);

    expect((await cli(['volumes', 'get', id, '-q'])).stdout).toBe(`${id}\n`);
    const missing = await cli(['volumes', 'get', '00000000-0000-4000-8000-000000000000']);
    expect(missing.code).toBe(5);
  });
});

describe('volumes update', () => {
  it('sends only the values given: retention as an object, frequency and run_offset as integers', async () => {
    const id = ids['uploads-fra1']!;
    const r = await cli([
      'volumes', 'update', id, '--frequency', '8', '--retention-weekly', '6', '--timezone', 'Europe/Paris', '--run-offset', '1',
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`Updated the schedule of volume ${id}.\n`);
    expect(sent()).toHaveLength(1);
    expect(sent()[0]).toMatchObject({ method: 'PATCH', path: `/v1/cloud_i/volumes/${id}` });
    expect(sent()[0]!.body).toStrictEqual({ frequency: 8, retention: { weekly: 6 }, timezone: 'Europe/Paris', run_offset: 1 });
    const after = await serviceVolume(id);
    expect(after).toMatchObject({ frequency: 8, timezone: 'Europe/Paris', run_offset: 1 });
    expect(after.retention).toMatchObject({ daily: 7, weekly: 6 });

    const q = await cli(['volumes', 'update', id, '--retention-daily', '3', '-q']);
    expect(q.stdout).toBe(`${id}\n`);
    expect(sent()[1]!.body).toStrictEqual({ retention: { daily: 3 } });
  });

  it('has no secondary region and refuses an empty update: exit 2, nothing sent', async () => {
    const id = ids['uploads-fra1']!;
    for (const args of [['--secondary-region', 'ams3'], ['--no-secondary-region']]) {
      const r = await cli(['volumes', 'update', id, ...args]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('secondary-region');
    }
    const empty = await cli(['volumes', 'update', id]);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('--frequency');
    expect(empty.stderr).not.toContain('secondary');
    const bad = await cli(['volumes', 'update', id, '--retention-monthly', 'many']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--retention-monthly');
    expect(sent()).toEqual([]);
  });
});

describe('volumes activate, pause, resume, deactivate', () => {
  it('activate needs a retention count: exit 2 naming the --retention flags, nothing sent', async () => {
    const r = await cli(['volumes', 'activate', ids['scratch-ams3']!, '--frequency', '24', '--timezone', 'UTC']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--retention-hourly, --retention-daily, --retention-weekly, --retention-monthly');
    expect(sent()).toEqual([]);
  });

  it('activates an inactive volume, then pause, resume and deactivate show in get', async () => {
    const id = ids['scratch-ams3']!;
    const status = async () => (JSON.parse((await cli(['volumes', 'get', id, '--json'])).stdout) as Volume).status;
    expect(await status()).toBe('inactive');

    emu.clearRequests();
    const activate = await cli(['volumes', 'activate', id, '--frequency', '12', '--retention-hourly', '4', '--retention-daily', '2', '--timezone', 'UTC']);
    expect(activate.code).toBe(0);
    expect(activate.stderr).toBe(`Activated snapshots of volume ${id}.\n`);
    expect(sent()[0]).toMatchObject({ method: 'PATCH', path: `/v1/cloud_i/volumes/${id}/activate` });
    expect(sent()[0]!.body).toStrictEqual({ frequency: 12, retention: { hourly: 4, daily: 2 }, timezone: 'UTC' });
    expect(await status()).toBe('active');

    emu.clearRequests();
    const pause = await cli(['volumes', 'pause', id, '-q']);
    expect(pause.code).toBe(0);
    expect(pause.stdout).toBe(`${id}\n`);
    expect(sent()[0]).toMatchObject({ method: 'PATCH', path: `/v1/cloud_i/volumes/${id}/pause`, body: undefined });
    expect(await status()).toBe('paused');

    emu.clearRequests();
    const resume = await cli(['volumes', 'resume', id]);
    expect(resume.stderr).toBe(`Resumed snapshots of volume ${id}.\n`);
    expect(sent()[0]).toMatchObject({ method: 'PATCH', path: `/v1/cloud_i/volumes/${id}/resume`, body: undefined });
    expect(await status()).toBe('active');

    emu.clearRequests();
    const refused = await cli(['volumes', 'deactivate', id]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`Deactivate snapshots of volume ${id}`);
    expect(sent()).toEqual([]);
    const deactivate = await cli(['volumes', 'deactivate', id, '--yes']);
    expect(deactivate.code).toBe(0);
    expect(deactivate.stderr).toBe(`Deactivated snapshots of volume ${id}.\n`);
    expect(sent()[0]).toMatchObject({ method: 'PATCH', path: `/v1/cloud_i/volumes/${id}/deactivate`, body: undefined });
    expect(await status()).toBe('inactive');
  });
});

describe('volumes snapshot', () => {
  it('list sends the filters and sort; TSV and -q match the service', async () => {
    const id = ids['pgdata-fra1']!;
    const r = await cli([
      'volumes', 'snapshot', 'list', id, '--status', 'completed', '--tags', 'daily', '--without-tags', 'weekly',
      '--started-since', '2020-01-01T00:00:00Z', '--completed-since', '2020-01-01T00:00:00Z', '--sort', 'size', '--json',
    ]);
    expect(r.code).toBe(0);
    expect(sent()[0]!.path).toBe(`/v1/cloud_i/volumes/${id}/snapshots`);
    expect(sent()[0]!.query).toEqual({
      status: 'completed',
      'tags[daily]': '1',
      'tags[weekly]': '0',
      started_since: '2020-01-01T00:00:00.000Z',
      completed_since: '2020-01-01T00:00:00.000Z',
      sort: 'size',
    });
    const snapshots = JSON.parse(r.stdout) as Snapshot[];
    expect(snapshots.length).toBeGreaterThan(0);
    for (const s of snapshots) expect(s).toMatchObject({ status: 'completed', tags: { daily: 1, weekly: 0 } });
    const sizes = snapshots.map((s) => s.size);
    expect(sizes).toEqual([...sizes].sort((a, b) => a - b));

    const all = (await serviceVolume(id)).snapshots!;
    // A month of daily snapshots takes more than a page: --all walks them.
    const tsv = await cli(['volumes', 'snapshot', 'list', id, '--sort', 'id', '--all', '-o', 'tsv']);
    const names = (tags: Record<string, number>) => Object.keys(tags).filter((k) => tags[k] === 1).join(',');
    expect(tsv.stdout).toBe(
      all.map((s) => [s.id, s.name, s.status, s.size, names(s.tags), s.started_at, s.completed_at ?? ''].join('\t') + '\n').join(''),
    );
    expect((await cli(['volumes', 'snapshot', 'list', id, '--sort', 'id', '--all', '-q'])).stdout).toBe(all.map((s) => `${s.id}\n`).join(''));
  });

  it('create requests a manual snapshot that shows in the list', async () => {
    const id = ids['uploads-fra1']!;
    const r = await cli(['volumes', 'snapshot', 'create', id]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(`Manual snapshot of volume ${id} requested.\n`);
    expect(sent()).toHaveLength(1);
    expect(sent()[0]).toMatchObject({ method: 'POST', path: `/v1/cloud_i/volumes/${id}/snapshots/manual`, body: undefined });
    const manual = JSON.parse((await cli(['volumes', 'snapshot', 'list', id, '--tags', 'manual', '--json'])).stdout) as Snapshot[];
    expect(manual.some((s) => s.name.startsWith('uploads-fra1-manual-'))).toBe(true);
  });

  it('delete: exactly one of <snapshot> and --all; a snapshot id is a whole number', async () => {
    const id = ids['uploads-fra1']!;
    expect((await cli(['volumes', 'snapshot', 'delete', id, '--yes'])).code).toBe(2);
    expect((await cli(['volumes', 'snapshot', 'delete', id, '5', '--all', '--yes'])).code).toBe(2);
    const bad = await cli(['volumes', 'snapshot', 'delete', id, 'latest', '--yes']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('<snapshot>');
    expect(sent()).toEqual([]);
    const noVolume = await cli(['volumes', 'snapshot', 'delete', '42', '5', '--yes']);
    expect(noVolume.code).toBe(5);
    expect(sent().map((r) => r.method)).toEqual(['GET']);
  });

  it('delete <snapshot> removes that snapshot only; --all removes the rest after the stronger question', async () => {
    const id = ids['uploads-fra1']!;
    const before = (await serviceVolume(id)).snapshots!;
    const target = before[before.length - 1]!.id;
    const one = await cli(['volumes', 'snapshot', 'delete', id, String(target), '--yes']);
    expect(one.code).toBe(0);
    expect(one.stderr).toBe(`Deleted snapshot ${target} of volume ${id}.\n`);
    expect(sent()[0]).toMatchObject({ method: 'DELETE', path: `/v1/cloud_i/volumes/${id}/snapshots/${target}`, body: undefined });
    expect((await serviceVolume(id)).snapshots!.map((s) => s.id)).toEqual(before.map((s) => s.id).filter((s) => s !== target));

    emu.clearRequests();
    const asked = await cli(['volumes', 'snapshot', 'delete', id, '--all']);
    expect(asked.code).toBe(2);
    expect(asked.stderr).toContain(`Delete ALL snapshots of volume ${id}`);
    expect(sent()).toEqual([]);
    const all = await cli(['volumes', 'snapshot', 'delete', id, '--all', '--yes']);
    expect(all.code).toBe(0);
    expect(all.stderr).toBe(`Deleted all snapshots of volume ${id}.\n`);
    expect(sent()).toHaveLength(1);
    expect(sent()[0]).toMatchObject({ method: 'DELETE', path: `/v1/cloud_i/volumes/${id}/snapshots`, body: undefined });
    expect((await cli(['volumes', 'snapshot', 'list', id, '--json'])).stdout).toBe('[]\n');
    expect((await serviceVolume(ids['pgdata-fra1']!)).snapshots!.length).toBeGreaterThan(0);
  });
});
