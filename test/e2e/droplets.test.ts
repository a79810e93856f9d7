// droplets as a user meets them: the built CLI against the emulator, asserting
// the request that went out (method, path, query, body and its JSON types), the
// bytes on stdout and the exit code, and that state changes show in `get`.
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { apiFetch, withEmulatorCli } from '../helpers/emulator.js';

interface Droplet {
  id: number;
  name: string;
  host: string;
  status: string;
  frequency: number;
  retention: Record<string, number>;
  timezone: string;
  run_offset: number;
  size: string;
  location: string;
  estimated_cost: string;
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

/** Seeded droplets by name; each test group changes its own. */
const ids: Record<string, number> = {};
const { emu, cli, sent } = withEmulatorCli();

/** What the service holds, read past the CLI. */
async function serviceDroplet(id: number): Promise<Droplet> {
  const res = await apiFetch(emu, `/v1/cloud_i/droplets/${id}`);
  return ((await res.json()) as { data: Droplet }).data;
}

beforeAll(async () => {
  const res = await apiFetch(emu, '/v1/cloud_i/droplets?page_size=100');
  for (const d of ((await res.json()) as { data: Droplet[] }).data) ids[d.name] = d.id;
  expect(Object.keys(ids)).toEqual(expect.arrayContaining(['web-01', 'db-primary', 'staging', 'old-wordpress']));
});
beforeEach(() => {
  emu.clearRequests();
});

describe('droplets list', () => {
  it('prints the data array with --json and one TSV line per droplet', async () => {
    const r = await cli(['droplets', 'list', '--json']);
    expect(r.code).toBe(0);
    expect(sent()).toHaveLength(1);
    expect(sent()[0]).toMatchObject({ method: 'GET', path: '/v1/cloud_i/droplets', query: {} });
    const droplets = JSON.parse(r.stdout) as Droplet[];
    expect(droplets.map((d) => d.name)).toEqual(['web-01', 'db-primary', 'staging', 'old-wordpress']);

    const tsv = await cli(['droplets', 'list', '-o', 'tsv']);
    expect(tsv.code).toBe(0);
    const db = droplets.find((d) => d.name === 'db-primary')!;
    const line = tsv.stdout.split('\n').find((l) => l.startsWith(`${db.id}\t`));
    expect(line).toBe(
      // Raw values (issue 16 §2.17): the frequency in hours, the retention as four counts.
      [db.id, 'db-primary', db.host, 'active', 6, 6, 7, 4, 3, db.timezone, db.size, db.location, db.estimated_cost, db.created_at].join('\t'),
    );
    expect(tsv.stdout.trimEnd().split('\n')).toHaveLength(4);
  });

  it('sends every filter and the sort, and -q prints the ids that matched', async () => {
    const r = await cli([
      'droplets', 'list', '--name', 'web', '--host', '164.90.180.12', '--status', 'active',
      '--modified-since', '2020-01-01T00:00:00Z', '--sort', '-created_at', '--page-size', '15', '-q',
    ]);
    expect(r.code).toBe(0);
    expect(sent()[0]!.path).toBe('/v1/cloud_i/droplets');
    expect(sent()[0]!.query).toEqual({
      name: 'web',
      host: '164.90.180.12',
      status: 'active',
      modified_since: '2020-01-01T00:00:00.000Z',
      sort: '-created_at',
      page_size: '15',
    });
    expect(r.stdout).toBe(`${ids['web-01']}\n`);
  });

  it('sorts by host, and shows the table with its columns', async () => {
    const r = await cli(['droplets', 'list', '--sort', '-host', '-q']);
    expect(r.code).toBe(0);
    expect(sent()[0]!.query).toEqual({ sort: '-host', page_size: '100' });
    expect(r.stdout).toBe([ids['old-wordpress'], ids.staging, ids['db-primary'], ids['web-01']].map((i) => `${i}\n`).join(''));
    const table = await cli(['droplets', 'list', '-o', 'table']);
    expect(table.code).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+Name\s+Host\s+Status\s+Frequency\s+Retention/);
  });

  it('refuses a status outside the interface: exit 2, the flag named, nothing sent', async () => {
    const r = await cli(['droplets', 'list', '--status', 'sleeping']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--status');
    expect(r.stderr).toContain('destroyed, inactive, paused, running, active');
    expect(sent()).toEqual([]);
  });
});

describe('droplets get', () => {
  it('--json prints exactly the data, snapshots included', async () => {
    const id = ids['db-primary']!;
    const r = await cli(['droplets', 'get', String(id), '--json']);
    expect(r.code).toBe(0);
    expect(sent()).toHaveLength(1);
    expect(sent()[0]).toMatchObject({ method: 'GET', path: `/v1/cloud_i/droplets/${id}`, query: {} });
    const shown = JSON.parse(r.stdout) as Droplet;
    expect(shown).toEqual(await serviceDroplet(id));
    expect(shown.snapshots!.length).toBeGreaterThan(0);
  });

  it('shows the record and a Snapshots section as a table; -q and tsv', async () => {
    const id = ids['db-primary']!;
    const service = await serviceDroplet(id);
    const table = await cli(['droplets', 'get', String(id), '-o', 'table']);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(new RegExp(`^ID:\\s+${id}$`, "m"));
    expect(table.stdout).toMatch(/^Frequency:\s+every 6h$/m);
    expect(table.stdout).toMatch(/^Retention:\s+h6 d7 w4 m3$/m);
    expect(table.stdout).toMatch(new RegExp(`^Snapshots:\\s+${service.snapshots!.length}$`, 'm'));
    expect(table.stdout).toMatch(/\nSnapshots\nID\s+Name\s+Status\s+Size\s+Tags\s+Started\s+Completed\n/);
    expect(table.stdout).toMatch(/\d+(\.\d)? [KMG]iB/);

    const q = await cli(['droplets', 'get', String(id), '-q']);
    expect(q.stdout).toBe(`${id}\n`);
    const tsv = await cli(['droplets', 'get', String(id), '-o', 'tsv']);
    expect(tsv.stdout).toBe(
      [
        id, 'db-primary', service.host, 'active', 6, 6, 7, 4, 3, service.timezone, service.size, service.location,
        service.estimated_cost, service.snapshots!.length, service.created_at, service.run_offset, 'ops@example.com',
      ].join('\t') + '\n',
    );
  });

  it('exits 5 for a droplet that does not exist', async () => {
    const r = await cli(['droplets', 'get', '999']);
    expect(r.code).toBe(5);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('404');
  });

  it('refuses an id that is not a positive whole number: exit 2, nothing sent; anything else is a name', async () => {
    const r = await cli(['droplets', 'get', '0']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('<id>');
    expect(sent()).toEqual([]);
    const byName = await cli(['droplets', 'get', 'web-01', '-q']);
    expect(byName.code, byName.stderr).toBe(0);
    expect(byName.stdout).toBe(`${ids['web-01']}\n`);
  });
});

describe('droplets update', () => {
  it('sends only the values given, retention as an object of the counts given, frequency as an integer', async () => {
    const id = ids.staging!;
    const r = await cli([
      'droplets', 'update', String(id), '--frequency', '12', '--retention-daily', '5', '--retention-weekly', '2',
      '--timezone', 'Europe/Paris', '--run-offset', '3', '--secondary-region', 'fra1',
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`Updated the schedule of droplet ${id}.\n`);
    expect(sent()).toHaveLength(1);
    expect(sent()[0]).toMatchObject({ method: 'PATCH', path: `/v1/cloud_i/droplets/${id}` });
    expect(sent()[0]!.body).toStrictEqual({
      frequency: 12,
      retention: { daily: 5, weekly: 2 },
      timezone: 'Europe/Paris',
      run_offset: 3,
      secondary_region: 'fra1',
    });
    const after = await serviceDroplet(id);
    expect(after).toMatchObject({ frequency: 12, timezone: 'Europe/Paris', run_offset: 3 });
    expect(after.retention).toMatchObject({ daily: 5, weekly: 2 });
  });

  it('--no-secondary-region sends null; -q prints the droplet id', async () => {
    const id = ids.staging!;
    const r = await cli(['droplets', 'update', String(id), '--no-secondary-region', '-q']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${id}\n`);
    expect(sent()[0]!.body).toStrictEqual({ secondary_region: null });
  });

  it('sends a retention count of 0 as the integer 0', async () => {
    const id = ids.staging!;
    const r = await cli(['droplets', 'update', String(id), '--retention-monthly', '0', '--retention-hourly', '2']);
    expect(r.code).toBe(0);
    expect(sent()[0]!.body).toStrictEqual({ retention: { hourly: 2, monthly: 0 } });
    expect((await serviceDroplet(id)).retention).toMatchObject({ hourly: 2, monthly: 0 });
  });

  it('refuses bad values and an empty update: exit 2, the flag named, nothing sent', async () => {
    const id = String(ids.staging);
    for (const [args, flag] of [
      [['--frequency', '0'], '--frequency'],
      [['--frequency', '1.5'], '--frequency'],
      [['--retention-daily', '-1'], '--retention-daily'],
      [['--run-offset', 'two'], '--run-offset'],
      [[], '--frequency'],
    ] as const) {
      const r = await cli(['droplets', 'update', id, ...args]);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toContain(flag);
      expect(r.stdout).toBe('');
    }
    expect(sent()).toEqual([]);
  });
});

describe('droplets activate, pause, resume, deactivate', () => {
  it('activate without a retention count exits 2 naming the --retention flags and sends nothing', async () => {
    const r = await cli(['droplets', 'activate', String(ids['old-wordpress']), '--frequency', '24', '--timezone', 'UTC']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--retention-hourly, --retention-daily, --retention-weekly, --retention-monthly');
    expect(sent()).toEqual([]);
  });

  it('activate without --timezone or --frequency exits 2 naming it', async () => {
    const id = String(ids['old-wordpress']);
    const noTz = await cli(['droplets', 'activate', id, '--frequency', '24', '--retention-daily', '7']);
    expect(noTz.code).toBe(2);
    expect(noTz.stderr).toContain('--timezone');
    const noFreq = await cli(['droplets', 'activate', id, '--timezone', 'UTC', '--retention-daily', '7']);
    expect(noFreq.code).toBe(2);
    expect(noFreq.stderr).toContain('--frequency');
    expect(sent()).toEqual([]);
  });

  it('activates an inactive droplet; get then shows it active with the schedule sent', async () => {
    const id = ids['old-wordpress']!;
    expect((await serviceDroplet(id)).status).toBe('inactive');
    const r = await cli([
      'droplets', 'activate', String(id), '--frequency', '24', '--retention-daily', '7', '--retention-weekly', '4',
      '--timezone', 'UTC', '--run-offset', '2', '--secondary-region', 'ams3',
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`Activated snapshots of droplet ${id}.\n`);
    expect(sent()).toHaveLength(1);
    expect(sent()[0]).toMatchObject({ method: 'PATCH', path: `/v1/cloud_i/droplets/${id}/activate` });
    expect(sent()[0]!.body).toStrictEqual({
      frequency: 24,
      retention: { daily: 7, weekly: 4 },
      timezone: 'UTC',
      run_offset: 2,
      secondary_region: 'ams3',
    });
    const get = await cli(['droplets', 'get', String(id), '--json']);
    expect(JSON.parse(get.stdout)).toMatchObject({ status: 'active', frequency: 24, run_offset: 2, timezone: 'UTC' });
  });

  it('pause then resume: PATCH without a body, the state shows in get', async () => {
    const id = ids['old-wordpress']!;
    const pause = await cli(['droplets', 'pause', String(id)]);
    expect(pause.code).toBe(0);
    expect(pause.stderr).toBe(`Paused snapshots of droplet ${id}.\n`);
    expect(sent()[0]).toMatchObject({ method: 'PATCH', path: `/v1/cloud_i/droplets/${id}/pause`, body: undefined });
    expect(JSON.parse((await cli(['droplets', 'get', String(id), '--json'])).stdout).status).toBe('paused');

    emu.clearRequests();
    const resume = await cli(['droplets', 'resume', String(id), '-q']);
    expect(resume.code).toBe(0);
    expect(resume.stdout).toBe(`${id}\n`);
    expect(sent()[0]).toMatchObject({ method: 'PATCH', path: `/v1/cloud_i/droplets/${id}/resume`, body: undefined });
    expect(JSON.parse((await cli(['droplets', 'get', String(id), '--json'])).stdout).status).toBe('active');
  });

  it('resume of a droplet that is not paused is refused by the service: exit 1', async () => {
    const r = await cli(['droplets', 'resume', String(ids['web-01'])]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`PATCH /v1/cloud_i/droplets/${ids['web-01']}/resume`);
  });

  it('deactivate asks first: without --yes and a terminal it exits 2 and sends nothing', async () => {
    const id = ids['old-wordpress']!;
    const r = await cli(['droplets', 'deactivate', String(id)]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`Deactivate snapshots of droplet ${id}`);
    expect(r.stderr).toContain('--yes');
    expect(sent()).toEqual([]);
  });

  it('deactivate --yes sends the PATCH; get then shows it inactive', async () => {
    const id = ids['old-wordpress']!;
    const r = await cli(['droplets', 'deactivate', String(id), '--yes']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(`Deactivated snapshots of droplet ${id}.\n`);
    expect(sent()).toHaveLength(1);
    expect(sent()[0]).toMatchObject({ method: 'PATCH', path: `/v1/cloud_i/droplets/${id}/deactivate`, body: undefined });
    expect((await serviceDroplet(id)).status).toBe('inactive');
  });
});

describe('droplets snapshot', () => {
  it('list sends status, both tag filters, the since filters and the sort', async () => {
    const id = ids['db-primary']!;
    const r = await cli([
      'droplets', 'snapshot', 'list', String(id), '--status', 'completed', '--tags', 'daily', '--without-tags', 'weekly,manual',
      '--started-since', '2020-01-01T00:00:00Z', '--completed-since', '2020-01-02T00:00:00Z', '--sort', '-started_at', '--json',
    ]);
    expect(r.code).toBe(0);
    expect(sent()).toHaveLength(1);
    expect(sent()[0]!.method).toBe('GET');
    expect(sent()[0]!.path).toBe(`/v1/cloud_i/droplets/${id}/snapshots`);
    expect(sent()[0]!.query).toEqual({
      status: 'completed',
      'tags[daily]': '1',
      'tags[weekly]': '0',
      'tags[manual]': '0',
      started_since: '2020-01-01T00:00:00.000Z',
      completed_since: '2020-01-02T00:00:00.000Z',
      sort: '-started_at',
    });
    const snapshots = JSON.parse(r.stdout) as Snapshot[];
    expect(snapshots.length).toBeGreaterThan(0);
    for (const s of snapshots) expect(s).toMatchObject({ status: 'completed', tags: { daily: 1, weekly: 0, manual: 0 } });
    const started = snapshots.map((s) => s.started_at);
    expect(started).toEqual([...started].sort().reverse());
  });

  it('list as TSV: size in bytes, the tags set as names; -q prints snapshot ids', async () => {
    const id = ids['db-primary']!;
    const all = (await serviceDroplet(id)).snapshots!;
    // Its 36 days of history take several pages: --all walks them.
    const tsv = await cli(['droplets', 'snapshot', 'list', String(id), '--sort', 'id', '--all', '-o', 'tsv']);
    expect(tsv.code).toBe(0);
    const names = (tags: Record<string, number>) => Object.keys(tags).filter((k) => tags[k] === 1).join(',');
    expect(tsv.stdout).toBe(
      all.map((s) => [s.id, s.name, s.status, s.size, names(s.tags), s.started_at, s.completed_at ?? ''].join('\t') + '\n').join(''),
    );
    const q = await cli(['droplets', 'snapshot', 'list', String(id), '--sort', 'id', '--all', '-q']);
    expect(q.stdout).toBe(all.map((s) => `${s.id}\n`).join(''));
  });

  it('list refuses an unknown tag: exit 2, the flag named, nothing sent', async () => {
    const r = await cli(['droplets', 'snapshot', 'list', String(ids['db-primary']), '--without-tags', 'yearly']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--without-tags');
    expect(sent()).toEqual([]);
  });

  it('create requests a manual snapshot (POST, no body) that then shows in the list', async () => {
    const id = ids['web-01']!;
    const r = await cli(['droplets', 'snapshot', 'create', String(id)]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`Manual snapshot of droplet ${id} requested.\n`);
    expect(sent()).toHaveLength(1);
    expect(sent()[0]).toMatchObject({ method: 'POST', path: `/v1/cloud_i/droplets/${id}/snapshots/manual`, body: undefined });
    const list = await cli(['droplets', 'snapshot', 'list', String(id), '--tags', 'manual', '--json']);
    const manual = JSON.parse(list.stdout) as Snapshot[];
    expect(manual.some((s) => s.name.startsWith('web-01-manual-') && ['in-progress', 'completed'].includes(s.status))).toBe(true);
    const q = await cli(['droplets', 'snapshot', 'create', String(id), '-q']);
    expect(q.stdout).toBe(`${id}\n`);
  });

  it('delete needs exactly one of <snapshot> and --all: exit 2 and nothing sent otherwise', async () => {
    const id = String(ids['web-01']);
    const neither = await cli(['droplets', 'snapshot', 'delete', id, '--yes']);
    expect(neither.code).toBe(2);
    expect(neither.stderr).toContain('<snapshot>');
    expect(neither.stderr).toContain('--all');
    const both = await cli(['droplets', 'snapshot', 'delete', id, '1', '--all', '--yes']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('not both');
    expect(sent()).toEqual([]);
  });

  it('delete <snapshot> asks about that snapshot, and with --yes deletes it alone', async () => {
    const id = ids['web-01']!;
    const before = (await serviceDroplet(id)).snapshots!;
    const target = before[0]!.id;
    const asked = await cli(['droplets', 'snapshot', 'delete', String(id), String(target)]);
    expect(asked.code).toBe(2);
    expect(asked.stderr).toContain(`Delete snapshot ${target} of droplet ${id}`);
    expect(sent()).toEqual([]);

    const r = await cli(['droplets', 'snapshot', 'delete', String(id), String(target), '--yes']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(`Deleted snapshot ${target} of droplet ${id}.\n`);
    expect(sent()).toHaveLength(1);
    expect(sent()[0]).toMatchObject({ method: 'DELETE', path: `/v1/cloud_i/droplets/${id}/snapshots/${target}`, body: undefined });
    const after = (await serviceDroplet(id)).snapshots!.map((s) => s.id);
    expect(after).toEqual(before.map((s) => s.id).filter((s) => s !== target));

    const gone = await cli(['droplets', 'snapshot', 'delete', String(id), String(target), '--yes', '-q']);
    expect(gone.code).toBe(5);
    expect(gone.stdout).toBe('');
  });

  it('delete <snapshot> -q prints the snapshot id', async () => {
    const id = ids['web-01']!;
    const target = (await serviceDroplet(id)).snapshots![0]!.id;
    const r = await cli(['droplets', 'snapshot', 'delete', String(id), String(target), '--yes', '-q']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${target}\n`);
  });

  it('delete --all asks the stronger question; with --yes it deletes every snapshot of the droplet', async () => {
    const id = ids['web-01']!;
    const asked = await cli(['droplets', 'snapshot', 'delete', String(id), '--all']);
    expect(asked.code).toBe(2);
    expect(asked.stderr).toContain(`Delete ALL snapshots of droplet ${id}`);
    expect(sent()).toEqual([]);

    const others = (await serviceDroplet(ids['db-primary']!)).snapshots!.length;
    const r = await cli(['droplets', 'snapshot', 'delete', String(id), '--all', '--yes', '-q']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${id}\n`);
    expect(sent()).toHaveLength(1);
    expect(sent()[0]).toMatchObject({ method: 'DELETE', path: `/v1/cloud_i/droplets/${id}/snapshots`, query: {}, body: undefined });
    const list = await cli(['droplets', 'snapshot', 'list', String(id), '--json']);
    expect(list.stdout).toBe('[]\n');
    expect((await serviceDroplet(ids['db-primary']!)).snapshots!.length).toBe(others);

    const again = await cli(['droplets', 'snapshot', 'delete', String(id), '--all', '--yes']);
    expect(again.code).toBe(0);
    expect(again.stderr).toBe(`Deleted all snapshots of droplet ${id}.\n`);
  });

  it('--dry-run of delete <snapshot> prints the request and sends nothing', async () => {
    const r = await cli(['--dry-run', 'droplets', 'snapshot', 'delete', '301234567', '12']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      `curl -X DELETE '${emu.url}/v1/cloud_i/droplets/301234567/snapshots/12' \\\n  -H "Authorization: Bearer $BACKUPCTL_TOKEN" \\\n  -H 'Accept: application/json'\n`,
    );
    expect(sent()).toEqual([]);
  });

  // Blocked on src/commands/runner.ts: it prints `request` (the single-snapshot
  // endpoint) before the handler runs. Enable once it leaves --dry-run to
  // handlers whose spec sets dryRunInHandler.
  it('--dry-run of delete --all prints the delete-all request; exclusivity still applies', async () => {
    const r = await cli(['--dry-run', 'droplets', 'snapshot', 'delete', '301234567', '--all']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      `curl -X DELETE '${emu.url}/v1/cloud_i/droplets/301234567/snapshots' \\\n  -H "Authorization: Bearer $BACKUPCTL_TOKEN" \\\n  -H 'Accept: application/json'\n`,
    );
    const neither = await cli(['--dry-run', 'droplets', 'snapshot', 'delete', '301234567']);
    expect(neither.code).toBe(2);
    const activate = await cli(['--dry-run', 'droplets', 'activate', '301234567', '--frequency', '24', '--timezone', 'UTC']);
    expect(activate.code).toBe(2);
    expect(sent()).toEqual([]);
  });
});
