// `backupctl api` as a script uses it: the exact request that reaches the
// service, the JSON on stdout, and the exit code.
import { beforeEach, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { apiRequests, withEmulatorCli } from '../helpers/emulator.js';

const { emu, cli, session } = withEmulatorCli();
const sent = () => apiRequests(emu);

beforeEach(() => emu.clearRequests());

describe('backupctl api: GET', () => {
  it('sends GET by default and prints the whole answer as compact JSON in a pipe', async () => {
    const r = await cli(['api', '/ssh-keys']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(sent()).toHaveLength(1);
    expect(sent()[0]).toMatchObject({ method: 'GET', path: '/v1/ssh-keys', query: {} });
    expect(sent()[0]!.body).toBeUndefined();
    const body = JSON.parse(r.stdout);
    expect(Array.isArray(body.data)).toBe(true);
    expect(body).toHaveProperty('links');
    expect(r.stdout).toBe(`${JSON.stringify(body)}\n`);
  });

  it('puts fields of a GET in the query string, nested in brackets, beside a query in the path', async () => {
    const r = await cli(['api', '/v1/snapshots?provider=cloud_a', '-X', 'GET', '-f', 'tags[manual]=1', '-f', 'sort=-started_at', '-F', 'page_size=15']);
    expect(r.code).toBe(0);
    expect(sent()).toHaveLength(1);
    expect(sent()[0]!.method).toBe('GET');
    expect(sent()[0]!.path).toBe('/v1/snapshots');
    expect(sent()[0]!.query).toEqual({ provider: 'cloud_a', 'tags[manual]': '1', sort: '-started_at', page_size: '15' });
    expect(Array.isArray(JSON.parse(r.stdout).data)).toBe(true);
  });

  it('accepts the path without a leading slash', async () => {
    const r = await cli(['api', 'servers/code', '-X', 'GET', '-F', 'key_id=1']);
    expect(r.code).toBe(0);
    expect(sent()[0]).toMatchObject({ method: 'GET', path: '/v1/servers/code', query: { key_id: '1' } });
    expect(typeof JSON.parse(r.stdout).code).toBe('string');
  });
});

describe('backupctl api: bodies', () => {
  it('turns -f and -F into a JSON body with the exact JSON types, and defaults to POST', async () => {
    const noteFile = path.join(session.cfg.dir, 'note.txt');
    writeFileSync(noteFile, 'from a file');
    const r = await cli([
      'api', '/ssh-keys',
      '-f', 'name=typed-key',
      '-f', 'raw=3',
      '-F', 'count=3',
      '-F', 'ratio=1.5',
      '-F', 'negative=-2',
      '-F', 'on=true',
      '-F', 'off=false',
      '-F', 'nothing=null',
      '-F', 'zip=007',
      '-F', 'word=hello',
      '-F', 'tags[manual]=1',
      '-F', 'retention[daily]=7',
      '-f', 'labels[]=a',
      '-f', 'labels[]=b',
      '-F', 'empty[]',
      '-F', `note=@${noteFile}`,
    ]);
    expect(r.code).toBe(0);
    expect(sent()).toHaveLength(1);
    expect(sent()[0]!.method).toBe('POST');
    expect(sent()[0]!.path).toBe('/v1/ssh-keys');
    expect(sent()[0]!.headers['content-type']).toMatch(/^application\/json/);
    expect(sent()[0]!.body).toStrictEqual({
      name: 'typed-key',
      raw: '3',
      count: 3,
      ratio: 1.5,
      negative: -2,
      on: true,
      off: false,
      nothing: null,
      zip: '007',
      word: 'hello',
      tags: { manual: 1 },
      retention: { daily: 7 },
      labels: ['a', 'b'],
      empty: [],
      note: 'from a file',
    });
    expect(JSON.parse(r.stdout).data.name).toBe('typed-key');
  });

  it('reads -F key=@- from standard input', async () => {
    const r = await cli(['api', '/ssh-keys', '-F', 'name=@-'], 'piped-name');
    expect(r.code).toBe(0);
    expect(sent()[0]!.body).toEqual({ name: 'piped-name' });
  });

  it('sends --input - from standard input as the body, with -X, and fields in the query string', async () => {
    const r = await cli(['api', '-X', 'POST', '/ssh-keys', '--input', '-', '-f', 'trace=1'], '{"name":"from-stdin","extra":[1,true,null]}');
    expect(r.code).toBe(0);
    expect(sent()).toHaveLength(1);
    expect(sent()[0]).toMatchObject({ method: 'POST', path: '/v1/ssh-keys', query: { trace: '1' } });
    expect(sent()[0]!.body).toStrictEqual({ name: 'from-stdin', extra: [1, true, null] });
    expect(JSON.parse(r.stdout).data.name).toBe('from-stdin');
  });

  it('prints nothing on stdout for a 204 answer', async () => {
    const created = JSON.parse((await cli(['api', '/ssh-keys', '-f', 'name=to-rename'])).stdout).data;
    emu.clearRequests();
    const r = await cli(['api', '-X', 'PATCH', `/ssh-keys/${created.id}/rename`, '-f', 'name=renamed']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(sent()[0]).toMatchObject({ method: 'PATCH', path: `/v1/ssh-keys/${created.id}/rename`, body: { name: 'renamed' } });
  });
});

describe('backupctl api --paginate', () => {
  it('follows every page into one JSON array', async () => {
    const all = await cli(['servers', 'list', '--all', '--json']);
    const expected = JSON.parse(all.stdout) as Array<{ id: number }>;
    expect(expected.length).toBeGreaterThan(15);
    emu.clearRequests();

    const r = await cli(['api', '/servers', '--paginate', '-F', 'page_size=15']);
    expect(r.code).toBe(0);
    const records = JSON.parse(r.stdout) as Array<{ id: number }>;
    expect(Array.isArray(records)).toBe(true);
    expect(records.map((s) => s.id)).toEqual(expected.map((s) => s.id));
    // Several pages, each a GET that kept the fields.
    expect(sent().length).toBeGreaterThan(1);
    for (const req of sent()) {
      expect(req.method).toBe('GET');
      expect(req.path).toBe('/v1/servers');
      expect(req.query.page_size).toBe('15');
    }
  });

  it('prints one record per line with -o ndjson', async () => {
    const r = await cli(['api', 'servers', '--paginate', '-o', 'ndjson']);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.length).toBeGreaterThan(15);
    for (const line of lines) expect(typeof JSON.parse(line).id).toBe('number');
  });

  it('refuses --paginate with a method other than GET, sending nothing', async () => {
    const r = await cli(['api', '/servers', '--paginate', '-X', 'POST']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(sent()).toHaveLength(0);
  });
});

describe('backupctl api: errors and dry runs', () => {
  it('exits 5 on a 404 with the error on stderr and stdout empty', async () => {
    const r = await cli(['api', '/snapshots/999999']);
    expect(r.code).toBe(5);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('404');
    expect(r.stderr).toContain('GET /v1/snapshots/999999');
  });

  it('exits 1 on a 422 with the field errors on stderr', async () => {
    const r = await cli(['api', '/servers', '-f', 'name=only-a-name']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/422/);
    expect(r.stderr).toContain('ssh_host');
  });

  it('refuses a full URL, so the token never leaves for another host', async () => {
    const r = await cli(['api', 'https://example.com/v1/servers']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(sent()).toHaveLength(0);
  });

  it('refuses --input that is not JSON, a field without =, and reading standard input twice', async () => {
    const bad = await cli(['api', '/ssh-keys', '--input', '-'], 'not json');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--input');
    const noEq = await cli(['api', '/ssh-keys', '-f', 'name']);
    expect(noEq.code).toBe(2);
    const twice = await cli(['api', '/ssh-keys', '--input', '-', '-F', 'name=@-'], '{}');
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain('standard input');
    expect(sent()).toHaveLength(0);
  });

  it('--dry-run prints the curl line without the token and sends nothing', async () => {
    const r = await cli(['api', '/ssh-keys', '-f', 'name=dry', '-F', 'n=1', '--dry-run']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`curl -X POST '${emu.url}/v1/ssh-keys'`);
    expect(r.stdout).toContain('-H "Authorization: Bearer $BACKUPCTL_TOKEN"');
    expect(r.stdout).toContain(`--data '{"name":"dry","n":1}'`);
    expect(r.stdout).not.toContain(emu.token);
    expect(sent()).toHaveLength(0);
    const get = await cli(['api', '/snapshots', '-X', 'GET', '-f', 'tags[daily]=1', '--dry-run']);
    expect(get.stdout).toContain(`curl -X GET '${emu.url}/v1/snapshots?tags[daily]=1'`);
  });
});
