// Proxies and private CAs, as the environment sets them: HTTP_PROXY and
// HTTPS_PROXY (undici's EnvHttpProxyAgent, which tunnels with CONNECT),
// NO_PROXY going direct, loopback hosts always going direct (issue 18, finding 2),
// and NODE_EXTRA_CA_CERTS trusting a CA made here with openssl for a TLS front
// of the emulator. A proxied request names the made-up host backup.test, which
// the test proxy connects to 127.0.0.1.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { startTestEmulator } from '../helpers/emulator.js';
import { startProxy, startTlsFront, type LocalServer, type ProxyLog } from '../helpers/servers.js';
import type { Emulator } from '../../src/emulator/index.js';

const RETRY_ENV = { BACKUPCTL_RETRY_BASE: '10ms', BACKUPCTL_RETRY_MAX_WAIT: '20ms' };

function haveOpenssl(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** A CA and a certificate for IP 127.0.0.1 signed by it (EC keys: quick to make). */
function makeCertificates(dir: string): { caFile: string; key: string; cert: string } {
  const file = (name: string) => path.join(dir, name);
  const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  run('req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=backupctl test CA',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
  run('req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1');
  writeFileSync(file('server.ext'), 'subjectAltName=IP:127.0.0.1,DNS:backup.test\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n');
  run('x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.pem', '-days', '2',
    '-extfile', 'server.ext');
  return { caFile: file('ca.pem'), key: readFileSync(file('server.key'), 'utf8'), cert: readFileSync(file('server.pem'), 'utf8') };
}

let emu: Emulator;
let proxy: LocalServer & ProxyLog;
let cfg: ReturnType<typeof tempConfigDir>;
const hostOf = (url: string) => new URL(url).host;

beforeAll(async () => {
  emu = await startTestEmulator();
  proxy = await startProxy();
  cfg = tempConfigDir();
});
afterAll(async () => {
  await proxy.close();
  await emu.close();
  cfg.cleanup();
});

const cli = (args: string[], env: Record<string, string | undefined>) =>
  runCli(args, { env: { BACKUPCTL_TOKEN: emu.token, BACKUPCTL_CONFIG_DIR: cfg.dir, ...RETRY_ENV, ...env } });
const resetLogs = () => {
  proxy.forwarded.length = 0;
  proxy.tunnels.length = 0;
  proxy.authorizations.length = 0;
  emu.clearRequests();
};
const throughProxy = () => [...proxy.tunnels, ...proxy.forwarded.map((f) => hostOf(f.split(' ')[1]!))];

describe('loopback hosts never go through a proxy (issue 18, finding 2)', () => {
  for (const [name, host] of [
    ['HTTP_PROXY', '127.0.0.1'],
    ['http_proxy', '127.0.0.1'],
    ['HTTP_PROXY', 'localhost'],
    ['HTTPS_PROXY', '127.0.0.1'],
  ] as const) {
    it(`${name} with http://${host}: direct, the proxy never sees the token`, async () => {
      resetLogs();
      const base = emu.url.replace('127.0.0.1', host);
      const r = await cli(['ssh-keys', 'list', '-q'], { BACKUPCTL_BASE_URL: base, [name]: proxy.url });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout, 'one id a line, at least one').toMatch(/^(\d+\n)+$/);
      expect(throughProxy()).toEqual([]);
      expect(proxy.authorizations).toEqual([]);
      expect(emu.requests.filter((q) => q.path === '/v1/ssh-keys')).toHaveLength(1);
    });
  }

  it('a proxy that is down does not matter to a loopback service', async () => {
    const gone = await startProxy();
    const url = gone.url;
    await gone.close();
    resetLogs();
    const r = await cli(['ssh-keys', 'list', '-q'], { BACKUPCTL_BASE_URL: emu.url, HTTP_PROXY: url, HTTPS_PROXY: url });
    expect(r.code, r.stderr).toBe(0);
  });

  for (const noProxy of ['127.0.0.1', '127.0.0.1:PORT', 'example.com, 127.0.0.1', '*']) {
    it(`NO_PROXY=${noProxy}: the request goes direct`, async () => {
      resetLogs();
      const value = noProxy.replace('PORT', new URL(emu.url).port);
      const r = await cli(['ssh-keys', 'list', '-q'], { BACKUPCTL_BASE_URL: emu.url, HTTP_PROXY: proxy.url, NO_PROXY: value });
      expect(r.code, r.stderr).toBe(0);
      expect(throughProxy()).toEqual([]);
      expect(emu.requests.filter((q) => q.path === '/v1/ssh-keys')).toHaveLength(1);
    });
  }
});

describe.skipIf(!haveOpenssl())('NODE_EXTRA_CA_CERTS and HTTPS_PROXY (certificates made with openssl)', () => {
  let dir: string;
  let certs: ReturnType<typeof makeCertificates>;
  let front: LocalServer;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'backupctl-tls-'));
    certs = makeCertificates(dir);
    front = await startTlsFront(emu.url, certs);
  });
  afterAll(async () => {
    await front.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('with NODE_EXTRA_CA_CERTS the private CA is trusted: exit 0', async () => {
    resetLogs();
    const r = await cli(['ssh-keys', 'list', '-q'], { BACKUPCTL_BASE_URL: front.url, NODE_EXTRA_CA_CERTS: certs.caFile });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout, 'one id a line, at least one').toMatch(/^(\d+\n)+$/);
    expect(emu.requests.filter((q) => q.path === '/v1/ssh-keys')).toHaveLength(1);
  });

  it('without it: exit 6 with a certificate error that says what to do, and no pointless retries', async () => {
    resetLogs();
    const r = await cli(['ssh-keys', 'list', '--debug'], { BACKUPCTL_BASE_URL: front.url });
    expect(r.code).toBe(6);
    const last = r.stderr.trimEnd().split('\n').pop()!;
    expect(last).toMatch(/^error: GET \/v1\/ssh-keys: TLS certificate not trusted \((UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_GET_ISSUER_CERT_LOCALLY): .*\); for a private CA set NODE_EXTRA_CA_CERTS to its PEM file$/);
    // Another try cannot change the verdict: one attempt.
    expect(r.stderr).not.toContain('retry 1 of 4');
    expect(emu.requests).toHaveLength(0);
  });

  const named = () => front.url.replace('127.0.0.1', 'backup.test');

  it('HTTPS_PROXY tunnels the TLS connection with CONNECT', async () => {
    resetLogs();
    const r = await cli(['ssh-keys', 'list', '-q'], {
      BACKUPCTL_BASE_URL: named(),
      NODE_EXTRA_CA_CERTS: certs.caFile,
      HTTPS_PROXY: proxy.url,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(proxy.tunnels).toEqual([hostOf(named())]);
    expect(emu.requests.filter((q) => q.path === '/v1/ssh-keys')).toHaveLength(1);
  });

  it('NO_PROXY naming another host leaves the proxy in use', async () => {
    resetLogs();
    const r = await cli(['ssh-keys', 'list', '-q'], {
      BACKUPCTL_BASE_URL: named(),
      NODE_EXTRA_CA_CERTS: certs.caFile,
      HTTPS_PROXY: proxy.url,
      NO_PROXY: 'example.com',
    });
    expect(r.code, r.stderr).toBe(0);
    expect(proxy.tunnels).toEqual([hostOf(named())]);
  });

  it('a proxy that is down: exit 6 naming the failure, after the retries', async () => {
    const gone = await startProxy();
    const url = gone.url;
    await gone.close();
    resetLogs();
    const r = await cli(['ssh-keys', 'list'], { BACKUPCTL_BASE_URL: named(), NODE_EXTRA_CA_CERTS: certs.caFile, HTTPS_PROXY: url });
    expect(r.code).toBe(6);
    expect(r.stderr).toMatch(/^error: GET \/v1\/ssh-keys: .*\(after 5 attempts\)\n$/);
    expect(emu.requests).toHaveLength(0);
  });

  it('a loopback https URL goes direct even with HTTPS_PROXY', async () => {
    resetLogs();
    const r = await cli(['ssh-keys', 'list', '-q'], {
      BACKUPCTL_BASE_URL: front.url,
      NODE_EXTRA_CA_CERTS: certs.caFile,
      HTTPS_PROXY: proxy.url,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(throughProxy()).toEqual([]);
  });
});
