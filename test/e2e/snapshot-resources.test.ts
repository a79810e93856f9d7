// resources (snapshot resources) as a user meets them: the built CLI against
// the emulator, asserting the request that went out (method, path, query, body
// field names and JSON types), the bytes on stdout and the exit code, and that
// changes show in what the service then answers.
import { beforeEach, describe, expect, it } from 'vitest';
import { apiFetch, withEmulatorCli } from '../helpers/emulator.js';

interface Resource {
  id: number;
  type: string;
  backups_activated: boolean;
  last_known_ip: string;
  last_synced_at: string;
  credentials?: { id: number; name: string };
  provider?: { name: string; pretty_name: string };
}

const ACTIVATE_FLAGS = [
  '--frequency', 'h6',
  '--retention-hourly', '0',
  '--retention-daily', '7',
  '--retention-weekly', '4',
  '--retention-monthly', '12',
  '--timezone', 'Europe/Amsterdam',
  '--run-offset', '2',
];

const { emu, cli, sent } = withEmulatorCli();

async function serviceResources(query = ''): Promise<Resource[]> {
  const res = await apiFetch(emu, `/v1/snapshots/resources${query}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: Resource[] }).data;
}
async function serviceResource(id: number): Promise<Resource> {
  const res = await apiFetch(emu, `/v1/snapshots/resources/${id}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: Resource }).data;
}
async function snapshotsOf(resourceId: number): Promise<number> {
  const res = await apiFetch(emu, '/v1/snapshots?page_size=100');
  const data = ((await res.json()) as { data: Array<{ resource: { id: number } | null }> }).data;
  return data.filter((s) => s.resource?.id === resourceId).length;
}

beforeEach(() => {
  emu.clearRequests();
});

describe('resources list', () => {
  it('--json prints exactly the data; tsv one line per resource with account and provider', async () => {
    const r = await cli(['resources', 'list', '--json']);
    expect(r.code).toBe(0);
    expect(sent()).toHaveLength(1);
    expect(sent()[0]).toMatchObject({ method: 'GET', path: '/v1/snapshots/resources', query: {}, body: undefined });
    const resources = await serviceResources();
    expect(resources.length).toBeGreaterThan(0);
    expect(r.stdout).toBe(`${JSON.stringify(resources)}\n`);

    const tsv = await cli(['resources', 'list', '-o', 'tsv']);
    expect(tsv.stdout).toBe(
      resources
        .map((x) => `${[x.id, x.type, x.provider!.name, x.credentials!.name, x.backups_activated, x.last_known_ip, x.last_synced_at].join('\t')}\n`)
        .join(''),
    );
    const table = await cli(['resources', 'list', '-o', 'table']);
    expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+Type\s+Provider\s+Account\s+Activated\s+IP\s+Last synced$/);
    expect(table.stdout).toMatch(/\s(yes|no)\s/);
  });

  it('sends the provider filter, modified_since and the sort; -q prints the ids', async () => {
    const r = await cli(['resources', 'list', '--provider', 'cloud_a', '--modified-since', '2020-01-01T00:00:00Z', '--sort', '-last_synced_at', '-q']);
    expect(r.code).toBe(0);
    expect(sent()[0]!.path).toBe('/v1/snapshots/resources');
    expect(sent()[0]!.query).toEqual({ provider: 'cloud_a', modified_since: '2020-01-01T00:00:00.000Z', sort: '-last_synced_at', page_size: '100' });
    const expected = await serviceResources('?provider=cloud_a&modified_since=2020-01-01T00:00:00Z&sort=-last_synced_at');
    expect(expected.length).toBeGreaterThan(0);
    expect(r.stdout).toBe(expected.map((x) => `${x.id}\n`).join(''));
  });

  it('refuses a sort field the endpoint lacks: exit 2, --sort named, nothing sent', async () => {
    const r = await cli(['resources', 'list', '--sort', 'name']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--sort');
    expect(r.stderr).toContain('id, last_synced_at');
    expect(sent()).toEqual([]);
  });
});

describe('resources get', () => {
  it('--json prints exactly the data; tsv shows the fields the answer has', async () => {
    const one = await serviceResource(1);
    const r = await cli(['resources', 'get', '1', '--json']);
    expect(r.code).toBe(0);
    expect(sent()).toHaveLength(1);
    expect(sent()[0]).toMatchObject({ method: 'GET', path: '/v1/snapshots/resources/1', query: {}, body: undefined });
    expect(r.stdout).toBe(`${JSON.stringify(one)}\n`);
    const tsv = await cli(['resources', 'get', '1', '-o', 'tsv']);
    expect(tsv.stdout).toBe(`${[one.id, one.type, one.backups_activated, one.last_known_ip, one.last_synced_at].join('\t')}\n`);
    const q = await cli(['resources', 'get', '1', '-q']);
    expect(q.stdout).toBe('1\n');
  });
});

describe('resources activate', () => {
  it('sends every schedule field flat with its JSON type; the resource is then activated', async () => {
    const inactive = (await serviceResources('?page_size=100')).find((x) => !x.backups_activated)!;
    expect(inactive).toBeDefined();
    const r = await cli(['resources', 'activate', String(inactive.id), ...ACTIVATE_FLAGS, '-o', 'table']);
    expect(r.code).toBe(0);
    expect(sent()).toHaveLength(1);
    const req = sent()[0]!;
    expect(req).toMatchObject({ method: 'PATCH', path: `/v1/snapshots/resources/${inactive.id}/activate`, query: {} });
    expect(req.body).toStrictEqual({
      frequency: 'h6',
      retention_hourly: 0,
      retention_daily: 7,
      retention_weekly: 4,
      retention_monthly: 12,
      timezone: 'Europe/Amsterdam',
      run_offset: 2,
    });
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`Activated snapshots of resource ${inactive.id}.`);
    expect((await serviceResource(inactive.id)).backups_activated).toBe(true);
  });

  it('-q prints the id acted on', async () => {
    const r = await cli(['resources', 'activate', '1', ...ACTIVATE_FLAGS, '-q']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('1\n');
  });

  it('refuses a missing or bad schedule flag: exit 2, the flag named, nothing sent', async () => {
    const withoutOffset = ACTIVATE_FLAGS.slice(0, -2);
    const missing = await cli(['resources', 'activate', '1', ...withoutOffset]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--run-offset');

    const hours = ACTIVATE_FLAGS.map((f) => (f === 'h6' ? '6' : f));
    const frequency = await cli(['resources', 'activate', '1', ...hours]);
    expect(frequency.code).toBe(2);
    expect(frequency.stderr).toContain('--frequency');
    expect(frequency.stderr).toContain('must be h<hours> or m<minutes>, such as h24 h12 h6 h4 h3 h2 h1 m30 m20 m15 m10 m6 m5');

    const negative = ACTIVATE_FLAGS.map((f, i) => (ACTIVATE_FLAGS[i - 1] === '--retention-daily' ? '-1' : f));
    const retention = await cli(['resources', 'activate', '1', ...negative]);
    expect(retention.code).toBe(2);
    expect(retention.stderr).toContain('--retention-daily');
    expect(sent()).toEqual([]);
  });
});

describe('resources deactivate', () => {
  it('without --yes and without a terminal: exit 2, nothing sent', async () => {
    const r = await cli(['resources', 'deactivate', '1']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Deactivate snapshots of resource 1');
    expect(sent()).toEqual([]);
  });

  it('--yes sends the PATCH without a body; the resource is then deactivated', async () => {
    const active = (await serviceResources('?page_size=100')).find((x) => x.backups_activated)!;
    const r = await cli(['resources', 'deactivate', String(active.id), '--yes', '-q']);
    expect(r.code).toBe(0);
    expect(sent().map((q) => [q.method, q.path, q.body])).toEqual([['PATCH', `/v1/snapshots/resources/${active.id}/deactivate`, undefined]]);
    expect(r.stdout).toBe(`${active.id}\n`);
    expect((await serviceResource(active.id)).backups_activated).toBe(false);
  });
});

describe('resources clear', () => {
  it('without --yes and without a terminal: exit 2 with the question, nothing sent', async () => {
    const r = await cli(['resources', 'clear', '2']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Remove all snapshots of resource 2');
    expect(sent()).toEqual([]);
    expect(await snapshotsOf(2)).toBeGreaterThan(0);
  });

  it('--yes sends DELETE .../clear and the snapshots of the resource are gone', async () => {
    const r = await cli(['resources', 'clear', '2', '--yes', '-o', 'table']);
    expect(r.code).toBe(0);
    expect(sent().map((q) => [q.method, q.path, q.body])).toEqual([['DELETE', '/v1/snapshots/resources/2/clear', undefined]]);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('Removed all snapshots of resource 2.');
    expect(await snapshotsOf(2)).toBe(0);
  });
});
