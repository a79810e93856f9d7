// The foundation as a user meets it: the built CLI against the emulator,
// asserting the request that went out, the bytes on stdout and the exit code.
import { beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { emulatorSession } from '../helpers/emulator.js';

const { emu, env } = emulatorSession({ seed: 'demo' });
const cli = (args: string[], extra: Record<string, string | undefined> = {}, input?: string) => runCli(args, { env: env(extra), input });
const sent = () => emu.requests.filter((r) => r.path.startsWith('/v1'));

beforeEach(() => {
  emu.requests.length = 0;
});

describe('servers', () => {
  it('lists every page as tsv when piped (a configuration list is read whole: issue 29), with the bearer token', async () => {
    const r = await cli(['servers', 'list']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.length).toBe(20);
    expect(lines[0]!.split('\t').length).toBeGreaterThan(4);
    // One request: a whole-list walk asks for pages of 100 (the 20 servers were two pages of the default 15).
    expect(sent()).toHaveLength(1);
    expect(sent()[0]!.method).toBe('GET');
    expect(sent()[0]!.path).toBe('/v1/servers');
    expect(sent()[0]!.query).toEqual({ page_size: '100' });
    expect(sent()[0]!.headers.authorization).toBe(`Bearer ${emu.token}`);
  });

  it('--all walks every page and keeps filters and page_size on each', async () => {
    const r = await cli(['servers', 'list', '--all', '--page-size', '15', '--sort', '-name', '--json']);
    expect(r.code).toBe(0);
    const records = JSON.parse(r.stdout) as Array<{ id: number; name: string }>;
    expect(records.length).toBeGreaterThan(15);
    const names = records.map((s) => s.name);
    expect(names).toEqual([...names].sort().reverse());
    expect(sent().length).toBeGreaterThan(1);
    for (const req of sent()) expect(req.query).toMatchObject({ page_size: '15', sort: '-name' });
    // Pages after the first may be fetched concurrently: each asked once.
    expect(sent().map((q) => Number(q.query.page ?? '1')).sort((a, b) => a - b)).toEqual(sent().map((_, i) => i + 1));
  });

  it('adds a server with the wire types of the interface and prints it', async () => {
    const r = await cli(['servers', 'add', '--name', 'web-x', '--host', '203.0.113.9', '--user', 'root', '--key', '1', '--json']);
    expect(r.code).toBe(0);
    expect(sent()[0]!.method).toBe('POST');
    expect(sent()[0]!.body).toEqual({ name: 'web-x', ssh_host: '203.0.113.9', ssh_port: '22', ssh_user: 'root', ssh_key: 1 });
    const server = JSON.parse(r.stdout);
    expect(server).toMatchObject({ name: 'web-x', host: '203.0.113.9', port: 22, user: 'root' });
    const q = await cli(['servers', 'list', '--name', 'web-x', '-q']);
    expect(q.stdout).toBe(`${server.id}\n`);
  });

  it('prints the install line of servers code alone, so it can be piped to a shell', async () => {
    const r = await cli(['servers', 'code', '--key', '1']);
    expect(r.code).toBe(0);
    expect(sent()[0]!.query).toEqual({ key_id: '1' });
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    const j = await cli(['servers', 'code', '--key', '1', '--json']);
    expect(typeof JSON.parse(j.stdout).code).toBe('string');
  });
});

describe('ssh-keys', () => {
  it('creates, renames and deletes a key', async () => {
    const c = await cli(['ssh-keys', 'create', '--name', 'ci-key', '-q']);
    expect(c.code).toBe(0);
    const id = c.stdout.trim();
    expect(id).toMatch(/^\d+$/);
    expect(sent()[0]!.body).toEqual({ name: 'ci-key' });

    const rn = await cli(['ssh-keys', 'rename', id, 'ci-key-2']);
    expect(rn.code).toBe(0);
    expect(rn.stdout).toBe('');
    expect(sent()[1]).toMatchObject({ method: 'PATCH', path: `/v1/ssh-keys/${id}/rename`, body: { name: 'ci-key-2' } });

    const list = await cli(['ssh-keys', 'list', '--all', '-o', 'ndjson']);
    const names = list.stdout.trim().split('\n').map((l) => JSON.parse(l).name);
    expect(names).toContain('ci-key-2');

    const d = await cli(['ssh-keys', 'delete', id, '--yes', '-q']);
    expect(d.code).toBe(0);
    expect(d.stdout).toBe(`${id}\n`);
    expect(sent()[3]).toMatchObject({ method: 'DELETE', path: `/v1/ssh-keys/${id}` });
  });

  it('refuses to delete without --yes when stdin is not a terminal, and sends nothing', async () => {
    const r = await cli(['ssh-keys', 'delete', '1']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('--yes');
    expect(sent()).toHaveLength(0);
  });

  it('checks --sort against the endpoint fields', async () => {
    const r = await cli(['ssh-keys', 'list', '--sort', 'size']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('error: invalid value "size" for --sort: must be one of: id, name, created_at, updated_at, last_used_at (prefix - for descending)\n');
    expect(sent()).toHaveLength(0);
  });
});

describe('errors: one line on stderr, nothing on stdout, the documented exit code', () => {
  it('a wrong flag value: exit 2, nothing sent', async () => {
    const r = await cli(['servers', 'list', '--page-size', '500']);
    expect(r).toMatchObject({ code: 2, stdout: '' });
    expect(r.stderr).toBe('error: invalid value "500" for --page-size: must be at most 100 (allowed: 15..100)\n');
    expect(sent()).toHaveLength(0);
  });

  it('a missing required flag: exit 2 naming it', async () => {
    const r = await cli(['servers', 'add', '--name', 'x', '--host', 'h', '--user', 'u']);
    expect(r).toMatchObject({ code: 2, stdout: '' });
    expect(r.stderr.split('\n')[0]).toBe('error: missing required flag --key');
    expect(sent()).toHaveLength(0);
  });

  it('an unknown flag: exit 2', async () => {
    const r = await cli(['servers', 'list', '--colour']);
    expect(r).toMatchObject({ code: 2, stdout: '' });
    expect(r.stderr).toContain("unknown option '--colour'");
  });

  it('a missing token: exit 3', async () => {
    const r = await cli(['servers', 'list'], { BACKUPCTL_TOKEN: undefined });
    expect(r).toMatchObject({ code: 3, stdout: '' });
    expect(r.stderr.split('\n')[0]).toBe('error: no API token for profile "default"');
    expect(sent()).toHaveLength(0);
  });

  it('a non-https base URL: exit 3', async () => {
    const r = await cli(['servers', 'list'], { BACKUPCTL_BASE_URL: 'http://backup.example.com' });
    expect(r).toMatchObject({ code: 3, stdout: '' });
    expect(r.stderr).toMatch(/^error: invalid base URL "http:\/\/backup.example.com" from BACKUPCTL_BASE_URL/);
  });

  it('a 401: exit 4 with the service message, token not shown', async () => {
    const r = await cli(['servers', 'list'], { BACKUPCTL_TOKEN: 'wrong-token-123456' });
    expect(r).toMatchObject({ code: 4, stdout: '' });
    expect(r.stderr.split('\n')[0]).toBe('error: 401 Unauthorized: GET /v1/servers: Unauthenticated.');
    expect(r.stderr).toContain('The token came from BACKUPCTL_TOKEN');
    expect(r.stderr).not.toContain('wrong-token-123456');
  });

  it('a 404: exit 5', async () => {
    const r = await cli(['ssh-keys', 'rename', '999999', 'x']);
    expect(r).toMatchObject({ code: 5, stdout: '' });
    expect(r.stderr).toMatch(/^error: 404 Not Found: PATCH \/v1\/ssh-keys\/999999\/rename: .+\n$/);
  });

  it('a 422: exit 1 with each field error', async () => {
    const r = await cli(['servers', 'add', '--name', 'x', '--host', 'h', '--user', 'u', '--key', '999999']);
    expect(r).toMatchObject({ code: 1, stdout: '' });
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^error: 422 Unprocessable Content: POST \/v1\/servers: /);
    expect(lines.slice(1).some((l) => l.startsWith('  ssh_key: '))).toBe(true);
  });

  it('--debug traces the request with the token redacted', async () => {
    const r = await cli(['ssh-keys', 'list', '--debug']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('[debug] > GET ');
    expect(r.stderr).toContain('authorization: Bearer ****');
    expect(r.stderr).toMatch(/\[debug\] < 200 \(\d+ ms\)/);
    expect(r.stderr).not.toContain(emu.token);
  });

  it('--dry-run prints curl with $BACKUPCTL_TOKEN and sends nothing', async () => {
    const r = await cli(['servers', 'add', '--name', 'x', '--host', 'h', '--user', 'u', '--key', '1', '--dry-run']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`curl -X POST '${emu.url}/v1/servers'`);
    expect(r.stdout).toContain('-H "Authorization: Bearer $BACKUPCTL_TOKEN"');
    expect(r.stdout).not.toContain(emu.token);
    expect(sent()).toHaveLength(0);
  });
});

describe('help', () => {
  it('lists the command groups', async () => {
    const r = await runCli(['--help']);
    expect(r.code).toBe(0);
    for (const g of ['auth', 'profiles', 'config', 'servers', 'ssh-keys', 'jobs', 'snapshots', 'storage']) {
      expect(r.stdout).toMatch(new RegExp(`^  ${g} `, 'm'));
    }
  });
  it('every command shows an example in its help', async () => {
    for (const cmd of [['servers', 'list'], ['servers', 'add'], ['ssh-keys', 'rename'], ['auth', 'login'], ['config', 'set']]) {
      const r = await runCli([...cmd, '--help']);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('Examples:\n  $ backupctl ');
    }
  });
  it('--version prints the version alone', async () => {
    const r = await runCli(['--version']);
    expect(r.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });
});
