// storage as a user meets it: the built CLI against the emulator, asserting
// the request that went out (method, path, query, body field names and JSON
// types), the bytes on stdout and the exit code. The secret comes from a flag,
// a --secret-file or standard input, without the file's final newline.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { apiFetch, withEmulatorCli } from '../helpers/emulator.js';

interface Storage {
  id: number;
  name: string;
  provider: string;
  region: string | null;
  bucket: string;
  endpoint: string | null;
  estimated_size: number;
  priority: number;
}

const FILE_SECRET = 'StorageFileSecret2b7d';
const STDIN_SECRET = 'StorageStdinSecret9e4a';

let files: string;
const { emu, cli, sent } = withEmulatorCli();

async function serviceStorage(query = ''): Promise<Storage[]> {
  const res = await apiFetch(emu, `/v1/storage${query}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: Storage[] }).data;
}
async function serviceOne(id: number): Promise<Storage | undefined> {
  return (await serviceStorage('?page_size=100')).find((s) => s.id === id);
}
/** A destination of its own for a test that changes or removes one. */
async function newStorage(name: string): Promise<number> {
  const res = await apiFetch(emu, '/v1/storage', {
    method: 'POST',
    json: { name, provider: 'cloud_j', key: 'k', secret: 's', bucket: 'b', region: 'nl-ams' },
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { data: Storage }).data.id;
}

beforeAll(async () => {
  files = mkdtempSync(path.join(tmpdir(), 'backupctl-storage-'));
});
afterAll(async () => {
  rmSync(files, { recursive: true, force: true });
});
beforeEach(() => {
  emu.clearRequests();
});

describe('storage list', () => {
  it('--json prints exactly the data; tsv one line per destination', async () => {
    const r = await cli(['storage', 'list', '--json']);
    expect(r.code).toBe(0);
    expect(sent()).toHaveLength(1);
    expect(sent()[0]).toMatchObject({ method: 'GET', path: '/v1/storage', query: {}, body: undefined });
    const all = await serviceStorage();
    expect(r.stdout).toBe(`${JSON.stringify(all)}\n`);

    const tsv = await cli(['storage', 'list', '-o', 'tsv']);
    expect(tsv.stdout).toBe(
      all.map((s) => `${[s.id, s.name, s.provider, s.region ?? '', s.bucket, s.endpoint ?? '', s.estimated_size, s.priority].join('\t')}\n`).join(''),
    );
    const table = await cli(['storage', 'list', '-o', 'table']);
    expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+Name\s+Provider\s+Region\s+Bucket\s+Endpoint\s+Est\. size\s+Priority$/);
    // Issue 42.13: the estimated size reads as a size (bytes in 1024s), never as a 11-digit count; tsv and
    // --json keep the service's number.
    for (const s of all) {
      const row = table.stdout.split('\n').find((l) => l.startsWith(`${s.id} `))!;
      expect(row).not.toContain(String(s.estimated_size));
      expect(row).toMatch(/\s\d+(\.\d)? (GiB|MiB|TiB)\s/);
    }
  });

  it('sends provider, region, modified_since and the sort; -q prints the ids', async () => {
    const r = await cli([
      'storage', 'list', '--provider', 'cloud_a', '--region', 'eu-central-1', '--modified-since', '2020-01-01T00:00:00Z',
      '--sort', '-name', '--page-size', '20', '-q',
    ]);
    expect(r.code).toBe(0);
    expect(sent()[0]!.path).toBe('/v1/storage');
    expect(sent()[0]!.query).toEqual({
      provider: 'cloud_a',
      region: 'eu-central-1',
      modified_since: '2020-01-01T00:00:00.000Z',
      sort: '-name',
      page_size: '20',
    });
    const expected = await serviceStorage('?provider=cloud_a&region=eu-central-1&modified_since=2020-01-01T00:00:00Z&sort=-name&page_size=20');
    expect(expected.length).toBeGreaterThan(0);
    expect(r.stdout).toBe(expected.map((s) => `${s.id}\n`).join(''));
  });
});

describe('storage add', () => {
  it('sends every field as a string; --json prints the new destination', async () => {
    const r = await cli([
      'storage', 'add', '--name', 'eu-primary', '--provider', 'cloud_a', '--region', 'eu-west-1', '--bucket', 'acme-eu',
      '--key', 'AKIAEXAMPLE', '--secret', 'flag-secret', '--json',
    ]);
    expect(r.code).toBe(0);
    expect(sent()).toHaveLength(1);
    expect(sent()[0]).toMatchObject({ method: 'POST', path: '/v1/storage', query: {} });
    expect(sent()[0]!.body).toStrictEqual({
      name: 'eu-primary',
      provider: 'cloud_a',
      key: 'AKIAEXAMPLE',
      secret: 'flag-secret',
      bucket: 'acme-eu',
      region: 'eu-west-1',
    });
    const shown = JSON.parse(r.stdout) as Storage;
    expect(r.stdout).toBe(`${JSON.stringify(await serviceOne(shown.id))}\n`);
    expect(shown).toMatchObject({ name: 'eu-primary', provider: 'cloud_a', region: 'eu-west-1', bucket: 'acme-eu', endpoint: null });
  });

  it('custom takes an endpoint and no region; the secret file loses its final newline', async () => {
    const file = path.join(files, 'secret.txt');
    writeFileSync(file, `${FILE_SECRET}\n`);
    const r = await cli([
      'storage', 'add', '--name', 'minio', '--provider', 'custom', '--endpoint', 'https://minio.example.com:9000',
      '--bucket', 'backups', '--key', 'admin', '--secret-file', file, '-q',
    ]);
    expect(r.code).toBe(0);
    expect(sent()[0]!.body).toStrictEqual({
      name: 'minio',
      provider: 'custom',
      key: 'admin',
      secret: FILE_SECRET,
      bucket: 'backups',
      endpoint: 'https://minio.example.com:9000',
    });
    expect(r.stdout).toMatch(/^\d+\n$/);
    expect(await serviceOne(Number(r.stdout))).toMatchObject({ provider: 'custom', region: null, endpoint: 'https://minio.example.com:9000' });
    expect(r.stdout + r.stderr).not.toContain(FILE_SECRET);
  });

  it('reads the secret from standard input with --secret-file -', async () => {
    const r = await cli(
      ['storage', 'add', '--name', 'piped', '--provider', 'cloud_g', '--region', 'eu', '--bucket', 'b', '--key', 'k', '--secret-file', '-', '-q'],
      `${STDIN_SECRET}\r\n`,
    );
    expect(r.code).toBe(0);
    expect((sent()[0]!.body as Record<string, unknown>).secret).toBe(STDIN_SECRET);
    expect(r.stdout + r.stderr).not.toContain(STDIN_SECRET);
  });

  it('refuses what the provider requires and a doubled secret: exit 2, the flag named, nothing sent', async () => {
    const endpoint = await cli(['storage', 'add', '--name', 'm', '--provider', 'custom', '--bucket', 'b', '--key', 'k', '--secret', 's']);
    expect(endpoint.code).toBe(2);
    expect(endpoint.stderr).toContain('--endpoint');
    const region = await cli(['storage', 'add', '--name', 'm', '--provider', 'cloud_i', '--bucket', 'b', '--key', 'k', '--secret', 's']);
    expect(region.code).toBe(2);
    expect(region.stderr).toContain('--region');
    const provider = await cli(['storage', 'add', '--name', 'm', '--provider', 'cloud_x', '--bucket', 'b', '--region', 'eu']);
    expect(provider.code).toBe(2);
    expect(provider.stderr).toContain('--provider');
    const file = path.join(files, 'double.txt');
    writeFileSync(file, 'from-file\n');
    const both = await cli(['storage', 'add', '--name', 'm', '--provider', 'cloud_a', '--region', 'eu', '--bucket', 'b', '--secret', 's', '--secret-file', file]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--secret-file');
    const missing = await cli(['storage', 'add', '--name', 'm', '--provider', 'cloud_a', '--region', 'eu', '--bucket', 'b', '--secret-file', path.join(files, 'nope.txt')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--secret-file');
    expect(sent()).toEqual([]);
  });
});

describe('storage update', () => {
  it('sends only what is given as PATCH; the confirmation goes to stderr', async () => {
    const id = await newStorage('to-update');
    const file = path.join(files, 'rotated.txt');
    writeFileSync(file, `${FILE_SECRET}\n`);
    emu.clearRequests();
    const r = await cli(['storage', 'update', String(id), '--name', 'renamed', '--key', 'NEWKEY', '--secret-file', file, '-o', 'table']);
    expect(r.code).toBe(0);
    expect(sent()).toHaveLength(1);
    expect(sent()[0]).toMatchObject({ method: 'PATCH', path: `/v1/storage/${id}`, query: {} });
    expect(sent()[0]!.body).toStrictEqual({ name: 'renamed', key: 'NEWKEY', secret: FILE_SECRET });
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`Updated storage ${id}.`);
    expect(await serviceOne(id)).toMatchObject({ name: 'renamed' });

    const q = await cli(['storage', 'update', String(id), '--name', 'again', '-q']);
    expect(q.code).toBe(0);
    expect(q.stdout).toBe(`${id}\n`);
    expect(sent()[1]!.body).toStrictEqual({ name: 'again' });
  });

  it('with nothing to change: exit 2, nothing sent', async () => {
    const r = await cli(['storage', 'update', '1']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('nothing to update');
    expect(sent()).toEqual([]);
  });
});

describe('storage delete', () => {
  it('without --yes and without a terminal: exit 2, nothing sent', async () => {
    const id = await newStorage('keep-me');
    emu.clearRequests();
    const r = await cli(['storage', 'delete', String(id)]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`Delete storage ${id}`);
    expect(sent()).toEqual([]);
    expect(await serviceOne(id)).toBeDefined();
  });

  it('--yes sends the DELETE and -q prints the id; the destination is gone', async () => {
    const id = await newStorage('remove-me');
    emu.clearRequests();
    const r = await cli(['storage', 'delete', String(id), '--yes', '-q']);
    expect(r.code).toBe(0);
    expect(sent().map((q) => [q.method, q.path, q.body])).toEqual([['DELETE', `/v1/storage/${id}`, undefined]]);
    expect(r.stdout).toBe(`${id}\n`);
    expect(await serviceOne(id)).toBeUndefined();
  });
});
