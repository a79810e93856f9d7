// A name wherever an id goes (issue 13, part 1): the built CLI against the
// emulator, asserting the look-up that went out, the request built with the
// resolved id, the exit code and the candidates listed for an ambiguous name.
import { beforeEach, describe, expect, it } from 'vitest';
import { apiFetch, withEmulatorCli } from '../helpers/emulator.js';

const { emu, cli, sent } = withEmulatorCli();
beforeEach(() => emu.clearRequests());
const line = (r: { method: string; path: string; query: Record<string, string | string[]> }) =>
  `${r.method} ${r.path}${Object.keys(r.query).length ? `?${new URLSearchParams(r.query as Record<string, string>).toString()}` : ''}`;

async function list<T>(path: string): Promise<T[]> {
  const res = await apiFetch(emu, `/v1${path}${path.includes('?') ? '&' : '?'}page_size=100`);
  return ((await res.json()) as { data: T[] }).data;
}
async function create<T>(path: string, json: unknown): Promise<T> {
  const res = await apiFetch(emu, `/v1${path}`, { method: 'POST', json });
  expect(res.status).toBeLessThan(300);
  return ((await res.json()) as { data: T }).data;
}

describe('names for ids', () => {
  it('jobs get "shop mysql" looks the job up by name and shows it; a name in another case works too', async () => {
    const shop = (await list<{ id: string; name: string }>('/jobs')).find((j) => j.name === 'shop mysql')!;
    const r = await cli(['jobs', 'get', 'shop mysql', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ id: shop.id, name: 'shop mysql' });
    expect(sent().map((q) => `${q.method} ${q.path}`)).toEqual(['GET /v1/jobs', `GET /v1/jobs/${shop.id}`]);
    const upper = await cli(['jobs', 'get', 'SHOP MySQL', '-q']);
    expect(upper.code, upper.stderr).toBe(0);
    expect(upper.stdout).toBe(`${shop.id}\n`);
  });

  it('a value shaped like an id is never looked up', async () => {
    const job = (await list<{ id: string }>('/jobs'))[0]!;
    const r = await cli(['jobs', 'get', job.id, '-q']);
    expect(r.code).toBe(0);
    expect(sent().map((q) => `${q.method} ${q.path}`)).toEqual([`GET /v1/jobs/${job.id}`]);
    emu.clearRequests();
    const key = await cli(['ssh-keys', 'delete', '999999', '--yes']);
    expect(key.code).toBe(5);
    expect(sent().map((q) => `${q.method} ${q.path}`)).toEqual(['DELETE /v1/ssh-keys/999999']);
  });

  it('an ambiguous name exits 2 listing the candidates (id and name) and sends nothing else', async () => {
    const a = await create<{ id: number }>('/ssh-keys', { name: 'twin' });
    const b = await create<{ id: number }>('/ssh-keys', { name: 'twin' });
    emu.clearRequests();
    const r = await cli(['ssh-keys', 'delete', 'twin', '--yes']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('error: "twin" (<id>) names 2 SSH keys: give the id\n');
    expect(r.stderr).toMatch(new RegExp(`\\n  ${a.id}\\s+twin\\n  ${b.id}\\s+twin\\n`));
    expect(sent().map((q) => q.method)).toEqual(['GET']);
    // Two names differing only in case: the exact one wins; another case of both is ambiguous.
    await create('/ssh-keys', { name: 'Pair' });
    const lower = await create<{ id: number }>('/ssh-keys', { name: 'pair' });
    emu.clearRequests();
    const exact = await cli(['ssh-keys', 'rename', 'pair', 'pair-2', '-q']);
    expect(exact.code, exact.stderr).toBe(0);
    expect(sent().map((q) => `${q.method} ${q.path}`)).toEqual(['GET /v1/ssh-keys', `PATCH /v1/ssh-keys/${lower.id}/rename`]);
    await create('/ssh-keys', { name: 'PAIR-2' });
    const neither = await cli(['ssh-keys', 'delete', 'Pair-2', '--yes']);
    expect(neither.code).toBe(2);
    expect(neither.stderr).toContain('names 2 SSH keys');
  });

  it('a name that matches nothing exits 5', async () => {
    const r = await cli(['jobs', 'backup', 'list', 'no such job']);
    expect(r.code).toBe(5);
    expect(r.stderr).toBe('error: no job with the id or name "no such job"\n  See backupctl jobs list.\n');
    expect(sent().map((q) => `${q.method} ${q.path}`)).toEqual(['GET /v1/jobs']);
  });

  it('--dry-run shows the request with the resolved id and lists the look-ups on stderr', async () => {
    const key = (await list<{ id: number; name: string }>('/ssh-keys')).find((k) => k.name === 'ci-runner')!;
    const r = await cli(['servers', 'add', '--name', 'n1', '--host', '192.0.2.1', '--user', 'root', '--key', 'ci-runner', '--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`"ssh_key":${key.id}`);
    expect(r.stderr).toBe('Looking up a name: GET /v1/ssh-keys?page_size=100\n');
    expect(sent().map(line)).toEqual(['GET /v1/ssh-keys?page_size=100']);
  });

  it('list endpoints with a name filter are asked with it (servers, droplets, volumes)', async () => {
    const web = (await list<{ id: number; name: string }>('/servers')).find((s) => s.name === 'web-02')!;
    const r = await cli(['jobs', 'create', '--name', 'x', '--recipe-id', '1', '--server', 'web-02', '--storage', '1', '--cron', '0 2 * * *', '--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`"compute":{"type":"server","server_id":${web.id}}`);
    expect(sent().map(line)).toEqual(['GET /v1/servers?page_size=100&name=web-02']);
    emu.clearRequests();
    const droplet = (await list<{ id: number; name: string }>('/cloud_i/droplets')).find((d) => d.name === 'db-primary')!;
    const d = await cli(['droplets', 'get', 'db-primary', '-q']);
    expect(d.code, d.stderr).toBe(0);
    expect(d.stdout).toBe(`${droplet.id}\n`);
    expect(sent().map(line)).toEqual(['GET /v1/cloud_i/droplets?page_size=100&name=db-primary', `GET /v1/cloud_i/droplets/${droplet.id}`]);
    const volume = (await list<{ id: string; name: string }>('/cloud_i/volumes')).find((v) => v.name === 'scratch-ams3')!;
    const v = await cli(['volumes', 'get', 'Scratch-AMS3', '-q']);
    expect(v.stdout).toBe(`${volume.id}\n`);
  });

  it('--storage takes names with a priority; each is looked up and the ids are sent', async () => {
    const job = await create<{ id: string }>('/jobs', {
      name: 'names-storage',
      recipe_id: 1,
      compute: { type: 'server', server_id: 1 },
      storage: [{ storage_id: 1, priority: 1 }],
      schedules: [{ order: 1, cron: '0 2 * * *', timezone: 'UTC' }],
    });
    const storage = await list<{ id: number; name: string }>('/storage');
    const cold = storage.find((s) => s.name === 'Cold archive')!;
    const minio = storage.find((s) => s.name === 'MinIO on-prem')!;
    emu.clearRequests();
    const r = await cli(['jobs', 'storage', 'set', 'names-storage', '--storage', 'cold archive:2', '--storage', `MinIO on-prem`, '--storage', '3:3']);
    expect(r.code, r.stderr).toBe(0);
    const patch = sent().find((q) => q.method === 'PATCH')!;
    expect(patch.path).toBe(`/v1/jobs/${job.id}/storage`);
    expect(patch.body).toEqual({
      storage: [
        { storage_id: cold.id, priority: 2 },
        { storage_id: minio.id, priority: 2 },
        { storage_id: 3, priority: 3 },
      ],
    });
  });

  it('accounts, storage and encryption keys: names where the service lists them, a clear refusal where it does not', async () => {
    const storage = (await list<{ id: number; name: string }>('/storage')).find((s) => s.name === 'Offsite copy')!;
    const r = await cli(['storage', 'update', 'offsite copy', '--name', 'Offsite copy', '--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`/v1/storage/${storage.id}'`);
    const key = await cli(['encryption-keys', 'delete', 'ops-2024', '--yes']);
    expect(key.code).toBe(2);
    expect(key.stderr).toContain('encryption keys cannot be looked up by name');
    expect(sent().filter((q) => q.path.startsWith('/v1/encryption-keys'))).toEqual([]);
  });
});

describe('short ids and suggestions (issue 25)', () => {
  it('a job, a backup and a volume are found by a unique prefix of 6 or more characters of their id', async () => {
    const shop = (await list<{ id: string; name: string }>('/jobs')).find((j) => j.name === 'shop mysql')!;
    const job = await cli(['jobs', 'get', shop.id.slice(0, 8), '-q']);
    expect(job.code, job.stderr).toBe(0);
    expect(job.stdout).toBe(`${shop.id}\n`);
    const six = await cli(['jobs', 'get', shop.id.slice(0, 6).toUpperCase(), '-q']);
    expect(six.stdout).toBe(`${shop.id}\n`);
    const backup = (await list<{ id: string }>(`/jobs/${shop.id}/backups`))[0]!;
    for (const args of [['backups', 'get', backup.id.slice(0, 8)], ['jobs', 'backup', 'get', 'shop mysql', backup.id.slice(0, 7)]]) {
      const r = await cli([...args, '-q']);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      expect(r.stdout).toBe(`${backup.id}\n`);
    }
    const volume = (await list<{ id: string }>('/cloud_i/volumes'))[0]!;
    const v = await cli(['volumes', 'get', volume.id.slice(0, 8), '-q']);
    expect(v.code, v.stderr).toBe(0);
    expect(v.stdout).toBe(`${volume.id}\n`);
  });

  it('fewer than 6 characters, or a prefix of no id, is not taken', async () => {
    const shop = (await list<{ id: string; name: string }>('/jobs')).find((j) => j.name === 'shop mysql')!;
    const short = await cli(['jobs', 'get', shop.id.slice(0, 5)]);
    expect(short.code).toBe(5);
    const none = await cli(['backups', 'get', 'ffffff00']);
    expect(none.code).toBe(5);
    expect(none.stderr).toContain('error: no backup with an id starting "ffffff00"');
    const bad = await cli(['backups', 'get', 'abc']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('or its first 6 or more characters');
  });

  it('no job with the id or name suggests the nearest names and those that start with or contain what was typed', async () => {
    const web = await cli(['jobs', 'get', 'web']);
    expect(web.code).toBe(5);
    expect(web.stderr).toBe('error: no job with the id or name "web"\n  Did you mean "web-01 files"?\n  See backupctl jobs list.\n');
    const typo = await cli(['jobs', 'get', 'shop-mysql']);
    expect(typo.stderr).toContain('  Did you mean "shop mysql"?\n');
    const files = await cli(['jobs', 'get', 'files']);
    expect(files.stderr).toContain('  Did you mean one of "web-01 files" or "archive files"?\n');
    const nothing = await cli(['jobs', 'get', 'zzzzzzzzzz']);
    expect(nothing.stderr).not.toContain('Did you mean');
  });
});
