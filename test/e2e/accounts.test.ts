// accounts as a user meets them: the built CLI against the emulator, asserting
// the request that went out (method, path, query, body field names and JSON
// types), the bytes on stdout and the exit code. Credentials come from flags,
// from a --credentials-file or from standard input, flags overriding the file.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { apiFetch, withEmulatorCli } from '../helpers/emulator.js';

interface Account {
  id: number;
  name: string;
  expires_at: string | null;
  created_at: string;
  updated_at: string;
  provider?: { name: string; pretty_name: string };
}

const FILE_SECRET = 'FileSecret7c1e93ab';
const STDIN_SECRET = 'StdinSecret4d2f80ce';
const SQL_DATETIME = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/;

let files: string;
const { emu, cli, sent } = withEmulatorCli();

async function serviceAccounts(query = ''): Promise<Account[]> {
  const res = await apiFetch(emu, `/v1/snapshots/accounts${query}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: Account[] }).data;
}
async function serviceAccount(id: number): Promise<Account | undefined> {
  return (await serviceAccounts('?page_size=100')).find((a) => a.id === id);
}
/** An account of its own for a test that changes or removes one. */
async function newAccount(name: string): Promise<number> {
  const res = await apiFetch(emu, '/v1/snapshots/accounts', {
    method: 'POST',
    json: { name, provider: 'cloud_h', credentials: { key: 'k-seed' } },
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { data: Account }).data.id;
}

beforeAll(() => {
  files = mkdtempSync(path.join(tmpdir(), 'backupctl-accounts-'));
});
afterAll(() => {
  rmSync(files, { recursive: true, force: true });
});
beforeEach(() => {
  emu.clearRequests();
});

describe('accounts list', () => {
  it('--json prints exactly the data; tsv keeps the service\'s dates as sent', async () => {
    const r = await cli(['accounts', 'list', '--json']);
    expect(r.code).toBe(0);
    expect(sent()).toHaveLength(1);
    expect(sent()[0]).toMatchObject({ method: 'GET', path: '/v1/snapshots/accounts', query: {}, body: undefined });
    const accounts = await serviceAccounts();
    expect(r.stdout).toBe(`${JSON.stringify(accounts)}\n`);

    const tsv = await cli(['accounts', 'list', '-o', 'tsv']);
    expect(tsv.code).toBe(0);
    expect(tsv.stdout).toBe(
      accounts.map((a) => `${[a.id, a.name, a.provider!.name, a.expires_at ?? '', a.created_at, a.updated_at].join('\t')}\n`).join(''),
    );
    expect(accounts[0]!.created_at).toMatch(SQL_DATETIME);
  });

  it('sends the provider filter, modified_since and the sort; -q prints the ids', async () => {
    const r = await cli(['accounts', 'list', '--provider', 'cloud_e', '--modified-since', '2020-01-01T00:00:00Z', '--sort', '-name', '-q']);
    expect(r.code).toBe(0);
    expect(sent()[0]).toMatchObject({ method: 'GET', path: '/v1/snapshots/accounts' });
    expect(sent()[0]!.query).toEqual({ provider: 'cloud_e', modified_since: '2020-01-01T00:00:00.000Z', sort: '-name', page_size: '100' });
    const expected = await serviceAccounts('?provider=cloud_e&modified_since=2020-01-01T00:00:00Z&sort=-name');
    expect(expected.length).toBeGreaterThan(0);
    expect(r.stdout).toBe(expected.map((a) => `${a.id}\n`).join(''));
  });
});

describe('accounts add', () => {
  it('sends name, provider and the credentials object; --json prints the new account', async () => {
    const r = await cli(['accounts', 'add', '--name', 'eu-zone', '--provider', 'cloud_e', '--key', 'K-123', '--zone', 'europe-west4-a', '--json']);
    expect(r.code).toBe(0);
    expect(sent()).toHaveLength(1);
    const req = sent()[0]!;
    expect(req).toMatchObject({ method: 'POST', path: '/v1/snapshots/accounts', query: {} });
    expect(req.body).toEqual({ name: 'eu-zone', provider: 'cloud_e', credentials: { key: 'K-123', zone: 'europe-west4-a' } });
    const shown = JSON.parse(r.stdout) as Account;
    expect(typeof shown.id).toBe('number');
    expect(shown).toMatchObject({ name: 'eu-zone', expires_at: null });
    expect(shown.created_at).toMatch(SQL_DATETIME);
    expect(r.stdout).toBe(`${JSON.stringify(shown)}\n`);
    expect(await serviceAccount(shown.id)).toMatchObject({ name: 'eu-zone', provider: { name: 'cloud_e' } });
  });

  it('refuses a missing credential the provider requires: exit 2, --secret named, nothing sent', async () => {
    const r = await cli(['accounts', 'add', '--provider', 'cloud_a', '--name', 'x', '--key', 'K']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--secret');
    expect(r.stderr).toContain('cloud_a');
    expect(r.stdout).toBe('');
    const cloudF = await cli(['accounts', 'add', '--provider', 'cloud_f', '--name', 'x', '--username', 'ops']);
    expect(cloudF.code).toBe(2);
    expect(cloudF.stderr).toContain('--password');
    const provider = await cli(['accounts', 'add', '--provider', 'cloud_z', '--name', 'x']);
    expect(provider.code).toBe(2);
    expect(provider.stderr).toContain('--provider');
    const name = await cli(['accounts', 'add', '--provider', 'cloud_h', '--key', 'K']);
    expect(name.code).toBe(2);
    expect(name.stderr).toContain('--name');
    expect(sent()).toEqual([]);
  });

  it('takes the secret from --credentials-file; flags override the file\'s keys', async () => {
    const file = path.join(files, 'cloud-a.json');
    writeFileSync(file, JSON.stringify({ key: 'FILE-KEY', secret: FILE_SECRET, region: 'eu-west-1' }));
    const r = await cli(['accounts', 'add', '--name', 'prod-a', '--provider', 'cloud_a', '--credentials-file', file, '--region', 'us-east-1', '-q']);
    expect(r.code).toBe(0);
    expect(sent()).toHaveLength(1);
    expect(sent()[0]).toMatchObject({ method: 'POST', path: '/v1/snapshots/accounts' });
    expect(sent()[0]!.body).toEqual({
      name: 'prod-a',
      provider: 'cloud_a',
      credentials: { key: 'FILE-KEY', secret: FILE_SECRET, region: 'us-east-1' },
    });
    expect(r.stdout).toMatch(/^\d+\n$/);
    expect(await serviceAccount(Number(r.stdout))).toMatchObject({ name: 'prod-a' });
    expect(r.stdout + r.stderr).not.toContain(FILE_SECRET);
  });

  it('reads the credentials from standard input with -', async () => {
    const input = JSON.stringify({ key: 'STDIN-KEY', secret: STDIN_SECRET });
    const r = await cli(['accounts', 'add', '--name', 'from-stdin', '--provider', 'cloud_c', '--credentials-file', '-', '--key', 'FLAG-KEY', '-q'], input);
    expect(r.code).toBe(0);
    expect(sent()[0]!.body).toEqual({ name: 'from-stdin', provider: 'cloud_c', credentials: { key: 'FLAG-KEY', secret: STDIN_SECRET } });
    expect(r.stdout).toMatch(/^\d+\n$/);
    expect(r.stdout + r.stderr).not.toContain(STDIN_SECRET);
  });

  it('a credentials file without what the provider requires is exit 2 naming the flag; a broken file too', async () => {
    const file = path.join(files, 'no-secret.json');
    writeFileSync(file, JSON.stringify({ key: 'K', region: 'eu-west-1' }));
    const r = await cli(['accounts', 'add', '--name', 'x', '--provider', 'cloud_g', '--credentials-file', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--secret');
    const broken = await cli(['accounts', 'add', '--name', 'x', '--provider', 'cloud_g', '--credentials-file', '-'], '{"key": ');
    expect(broken.code).toBe(2);
    expect(broken.stderr).toContain('--credentials-file');
    expect(sent()).toEqual([]);
  });
});

describe('accounts update', () => {
  it('sends only what is given as PATCH; the confirmation goes to stderr, nothing to stdout', async () => {
    const id = await newAccount('to-update');
    const file = path.join(files, 'rotate.json');
    writeFileSync(file, JSON.stringify({ key: 'ROTATED', secret: FILE_SECRET }));
    const r = await cli(['accounts', 'update', String(id), '--name', 'updated', '--credentials-file', file, '--region', 'eu-north-1', '-o', 'table']);
    expect(r.code).toBe(0);
    expect(sent()).toHaveLength(1);
    expect(sent()[0]).toMatchObject({ method: 'PATCH', path: `/v1/snapshots/accounts/${id}`, query: {} });
    expect(sent()[0]!.body).toEqual({ name: 'updated', credentials: { key: 'ROTATED', secret: FILE_SECRET, region: 'eu-north-1' } });
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`Updated account ${id}.`);
    expect(await serviceAccount(id)).toMatchObject({ name: 'updated' });

    const q = await cli(['accounts', 'update', String(id), '--provider', 'cloud_b', '-q']);
    expect(q.code).toBe(0);
    expect(q.stdout).toBe(`${id}\n`);
    expect(sent()[1]!.body).toEqual({ provider: 'cloud_b' });
  });

  it('with nothing to change: exit 2, nothing sent', async () => {
    const r = await cli(['accounts', 'update', '1']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('nothing to update');
    expect(r.stderr).toContain('--credentials-file');
    expect(sent()).toEqual([]);
  });
});

describe('accounts delete', () => {
  it('without --yes and without a terminal: exit 2, nothing sent', async () => {
    const id = await newAccount('keep-me');
    emu.clearRequests();
    const r = await cli(['accounts', 'delete', String(id)]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`Delete account ${id}`);
    expect(sent()).toEqual([]);
    expect(await serviceAccount(id)).toBeDefined();
  });

  it('--yes sends the DELETE and -q prints the id', async () => {
    const id = await newAccount('remove-me');
    emu.clearRequests();
    const r = await cli(['accounts', 'delete', String(id), '--yes', '-q']);
    expect(r.code).toBe(0);
    expect(sent().map((q) => [q.method, q.path, q.body])).toEqual([['DELETE', `/v1/snapshots/accounts/${id}`, undefined]]);
    expect(r.stdout).toBe(`${id}\n`);
    expect(await serviceAccount(id)).toBeUndefined();
  });
});

describe('accounts sync', () => {
  it('sends PATCH .../sync without a body and says the sync was requested', async () => {
    const r = await cli(['accounts', 'sync', '2', '-o', 'table']);
    expect(r.code).toBe(0);
    expect(sent().map((q) => [q.method, q.path, q.body])).toEqual([['PATCH', '/v1/snapshots/accounts/2/sync', undefined]]);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('Sync of account 2 requested.');
    const q = await cli(['accounts', 'sync', '2', '-q']);
    expect(q.stdout).toBe('2\n');
  });

  it('an unknown account is exit 5', async () => {
    const r = await cli(['accounts', 'sync', '999999']);
    expect(r.code).toBe(5);
  });
});
