// `-o ndjson` and compact `--json` write each record of a list as the service wrote it (issue 31,
// the transport at the floor; docs/scripting.md "Records as the service sent them"): through the
// built CLI against a small fake service whose pages spell numbers `1.0`, `1e3`, `-0` and past
// 2^53, escape unicode, hold raw DEL and bidi characters or a byte that is not UTF-8, and mix
// pretty and compact records.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { runCli, tempConfigDir } from '../helpers/cli.js';

const JOB = '9a0c3f52-7d1e-4a8b-9c6d-2e5f4b3a1c00';
const meta = (page: number) => `"links":{"next":null},"meta":{"current_page":${page},"last_page":4,"per_page":2,"total":7}`;
// Page 1: compact; every record is printed as written.
const A = '{"id":"a1","size":1.0,"big":12345678901234567891,"name":"caf\\u00e9 \\u2028","n":1e3,"neg":-0}';
const B = '{"id":"b1","nested":{"x":[1,2.50,{"y":"\\/"}]},"s":"tab\\there \\"q\\" \\\\","e":[],"o":{}}';
// Page 2: raw DEL and bidi override characters: the page is re-written, the characters escaped.
const C = '{"id":"c1","name":"a\u007fb","v":1.0}';
const D = '{"id":"c2","name":"x\u202ey"}';
// Page 3: one pretty record (re-written) before a compact one with a two-byte character (printed as written).
const E = '{ "id": "d1",\n  "name": "naïve", "v": 1.0 }';
const F = '{"id":"e1","v":2.0,"name":"ü"}';
// Page 4: a byte that is not UTF-8 (0x9b alone, a CSI to some terminals): read as U+FFFD, so re-written.
const G = Buffer.concat([Buffer.from('{"id":"g1","n":"a'), Buffer.from([0x9b]), Buffer.from('b","v":1.0}')]);
const PAGES: Record<string, string | Buffer> = {
  '1': `{"data":[${A},${B}],${meta(1)}}`,
  '2': `{"data":[${C},${D}],${meta(2)}}`,
  '3': `{"data":[${E},${F}],${meta(3)}}`,
  '4': Buffer.concat([Buffer.from('{"data":['), G, Buffer.from(`],${meta(4)}}`)]),
};
const LINES = [
  A,
  B,
  '{"id":"c1","name":"a\\u007fb","v":1}',
  '{"id":"c2","name":"x\\u202ey"}',
  '{"id":"d1","name":"naïve","v":1}',
  F,
  '{"id":"g1","n":"a\ufffdb","v":1}',
];

let server: Server;
let url = '';
const cfg = tempConfigDir();
const seen: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    seen.push(u.pathname + u.search);
    const body = u.pathname === `/v1/jobs/${JOB}/backups` ? PAGES[u.searchParams.get('page') ?? '1'] : undefined;
    res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' });
    res.end(body ?? '{"message":"not found"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  cfg.cleanup();
});

const list = (...extra: string[]) =>
  runCli(['jobs', 'backup', 'list', JOB, '--all', ...extra], { env: { BACKUPCTL_BASE_URL: url, BACKUPCTL_TOKEN: 'tok_verbatim', BACKUPCTL_CONFIG_DIR: cfg.dir } });

/** Every record the service sent, as JSON.parse reads it. */
const served = () => Object.values(PAGES).flatMap((p) => (JSON.parse(p.toString()) as { data: unknown[] }).data);

describe('records as the service sent them', () => {
  it('-o ndjson: compact records byte for byte, odd pages re-written and escaped; each line parses to the record', async () => {
    const r = await list('-o', 'ndjson');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdoutBytes!.equals(Buffer.from(LINES.map((l) => `${l}\n`).join(''), 'utf8'))).toBe(true);
    expect(r.stdout).toBe(LINES.map((l) => `${l}\n`).join(''));
    expect(r.stdout.trimEnd().split('\n').map((l) => JSON.parse(l))).toEqual(served());
    // The whole numbers past 2^53 keep their digits; nothing steers a terminal.
    expect(r.stdout).toContain('"big":12345678901234567891');
    expect(r.stdout).not.toMatch(/[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    expect(seen.filter((s) => s.includes('page=')).length).toBeGreaterThanOrEqual(2);
  });

  it('--json in a pipe: one compact array of the same texts', async () => {
    const r = await list('--json');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`[${LINES.join(',')}]\n`);
    expect(JSON.parse(r.stdout)).toEqual(served());
  });

  it('--jq and tsv read the records as parsed: 1.0 is 1 there', async () => {
    const jq = await list('--jq', '.[0].size');
    expect(jq.code, jq.stderr).toBe(0);
    expect(jq.stdout).toBe('1\n');
    const q = await list('-q');
    expect(q.stdout).toBe('a1\nb1\nc1\nc2\nd1\ne1\ng1\n');
  });
});
