// Issue 18, finding 9: a table of one oversized page took time quadratic in its rows
// (20,000 rows: 46 s) and blocked the event loop, so Ctrl-C went unheard. A large page
// is now measured whole and printed in chunks: linear time, and SIGINT ends it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { startCli } from '../helpers/spawn.js';
import { startHostileServer, type HostileRequest, type LocalServer } from '../helpers/servers.js';

let srv: LocalServer & { received: HostileRequest[] };
let cfg: ReturnType<typeof tempConfigDir>;
let rows = 0;

beforeAll(async () => {
  cfg = tempConfigDir();
  srv = await startHostileServer((_req, res) => {
    // One page of `rows` servers; the longest name comes last.
    const data = Array.from({ length: rows }, (_, i) => ({ id: i + 1, name: i === rows - 1 ? `the-last-and-longest-name-${'z'.repeat(20)}` : `web-${i + 1}`, host: '198.51.100.7' }));
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ data, links: { next: null } }));
  });
});
afterAll(async () => {
  await srv.close();
  cfg.cleanup();
});
const env = () => ({ BACKUPCTL_BASE_URL: srv.url, BACKUPCTL_TOKEN: 'tok-tables', BACKUPCTL_CONFIG_DIR: cfg.dir, COLUMNS: '200' });

describe('finding 9: a table of one oversized page', () => {
  it('20,000 rows print (CPU time: test/unit/security-table.test.ts), aligned on widths measured over the whole page', async () => {
    rows = 20_000;
    const r = await runCli(['servers', 'list', '-o', 'table', '--columns', 'id,name,host'], { env: env(), timeoutMs: 40_000 });
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(20_001);
    // The last row's name was measured with the rest: not cut, and its host column lines up with the header's.
    const last = lines.at(-1)!;
    expect(last).toContain(`the-last-and-longest-name-${'z'.repeat(20)}`);
    const hostAt = lines[0]!.search(/HOST/i);
    expect(hostAt).toBeGreaterThan(0);
    for (const line of [lines[1]!, lines[5000]!, last]) expect(line.indexOf('198.51.100.7')).toBe(hostAt);
  }, 50_000);

  it('Ctrl-C while 60,000 rows print: exit 130 at once, whole lines only', async () => {
    rows = 60_000;
    const run = startCli(['servers', 'list', '-o', 'table', '--columns', 'id,name'], env(), 30_000);
    await run.waitForStdout((out) => out.split('\n').length > 300, 25_000);
    const signalled = Date.now();
    run.child.kill('SIGINT');
    const r = await run.done;
    expect(r.signal).toBeNull();
    expect(r.code).toBe(130);
    expect(Date.now() - signalled).toBeLessThan(5_000);
    expect(r.stderr).toContain('Interrupted.');
    expect(r.stdout.endsWith('\n')).toBe(true);
    expect(r.stdout.trimEnd().split('\n').length).toBeLessThan(60_001);
  }, 40_000);
});
