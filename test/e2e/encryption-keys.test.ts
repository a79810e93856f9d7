// encryption-keys create/delete through the built CLI against one emulator:
// the PEM text is read from a file or standard input and checked before
// anything is sent; the exact request, stdout bytes and exit codes.
import { createHash, generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { withEmulatorCli } from '../helpers/emulator.js';

// Real 4096-bit keys: the emulator checks the PEM as the service would.
const pair = generateKeyPairSync('rsa', { modulusLength: 4096 });
const SPKI_PEM = pair.publicKey.export({ type: 'spki', format: 'pem' }).toString();
const PKCS1_PEM = pair.publicKey.export({ type: 'pkcs1', format: 'pem' }).toString();
const PRIVATE_PEM = pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const FINGERPRINT = `SHA256:${createHash('sha256').update(pair.publicKey.export({ type: 'spki', format: 'der' })).digest('base64').replace(/=+$/, '')}`;

let dir: string;
const { emu, cli, sent } = withEmulatorCli();
function file(name: string, text: string): string {
  const p = path.join(dir, name);
  writeFileSync(p, text);
  return p;
}

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'backupctl-keys-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => emu.clearRequests());

describe('encryption-keys create', () => {
  it('from a file: POST {name, public_key} with the PEM text; --json prints the record', async () => {
    const r = await cli(['encryption-keys', 'create', '--name', 'prod', '--public-key-file', file('backup.pub', SPKI_PEM), '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(sent()).toHaveLength(1);
    expect(sent()[0]).toMatchObject({ method: 'POST', path: '/v1/encryption-keys' });
    expect(sent()[0]!.body).toEqual({ name: 'prod', public_key: SPKI_PEM });
    const record = JSON.parse(r.stdout) as { id: unknown; name: string; public_key: string };
    expect(record).toMatchObject({ name: 'prod', public_key: SPKI_PEM });
    expect(record.id).toBeDefined();
  });

  it('from standard input (an RSA PUBLIC KEY); -q prints the id', async () => {
    const r = await cli(['encryption-keys', 'create', '--name', 'pkcs1', '--public-key-file', '-', '-q'], PKCS1_PEM);
    expect(r.code, r.stderr).toBe(0);
    expect(sent()[0]!.body).toEqual({ name: 'pkcs1', public_key: PKCS1_PEM });
    expect(r.stdout).toMatch(/^\d+\n$/);
  });

  it('table: id, name, a fingerprint that tells keys apart, created', async () => {
    const r = await cli(['encryption-keys', 'create', '--name', 'table', '--public-key-file', '-', '-o', 'table'], SPKI_PEM);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^ID:\s+\d+$/m);
    expect(r.stdout).toMatch(/^Name:\s+table$/m);
    expect(r.stdout).toMatch(new RegExp(`^Fingerprint:\\s+${FINGERPRINT.replace(/[+/]/g, '\\$&')}$`, 'm'));
    expect(r.stdout).not.toContain('BEGIN PUBLIC KEY');
  });

  it('text that is not a PEM public key exits 2 naming --public-key-file, and nothing is sent', async () => {
    const cases: Array<[string[], string | undefined, RegExp]> = [
      [['--public-key-file', '-'], 'ssh-rsa AAAAB3NzaC1yc2E user@host\n', /--public-key-file/],
      [['--public-key-file', file('empty.pub', '')], undefined, /--public-key-file/],
      [['--public-key-file', file('cert.pem', '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n')], undefined, /--public-key-file/],
      [['--public-key-file', file('backup.key', PRIVATE_PEM)], undefined, /--public-key-file: this is a PRIVATE key/],
      [['--public-key-file', path.join(dir, 'absent.pub')], undefined, /--public-key-file/],
      [[], undefined, /--public-key-file/],
    ];
    for (const [args, input, message] of cases) {
      const r = await cli(['encryption-keys', 'create', '--name', 'bad', ...args], input);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(message);
      expect(r.stdout).toBe('');
      // a private key must never be echoed back
      expect(r.stderr).not.toContain(PRIVATE_PEM.split('\n')[1]!);
    }
    const noName = await cli(['encryption-keys', 'create', '--public-key-file', '-'], SPKI_PEM);
    expect(noName.code).toBe(2);
    expect(noName.stderr).toContain('--name');
    expect(sent()).toHaveLength(0);
  });
});

describe('encryption-keys delete', () => {
  it('asks without --yes (exit 2, nothing sent); --yes sends DELETE and confirms on stderr', async () => {
    const id = (await cli(['encryption-keys', 'create', '--name', 'gone', '--public-key-file', '-', '-q'], SPKI_PEM)).stdout.trim();
    emu.clearRequests();
    const asked = await cli(['encryption-keys', 'delete', id]);
    expect(asked.code).toBe(2);
    expect(asked.stderr).toContain('--yes');
    expect(sent()).toHaveLength(0);
    const r = await cli(['encryption-keys', 'delete', id, '--yes']);
    expect(r.code, r.stderr).toBe(0);
    expect(sent()).toHaveLength(1);
    expect(sent()[0]).toMatchObject({ method: 'DELETE', path: `/v1/encryption-keys/${id}`, body: undefined });
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`Deleted encryption key ${id}.\n`);
    const again = await cli(['encryption-keys', 'delete', id, '--yes']);
    expect(again.code).toBe(5);
  });

  it('-q prints the id deleted', async () => {
    const id = (await cli(['encryption-keys', 'create', '--name', 'q', '--public-key-file', '-', '-q'], SPKI_PEM)).stdout.trim();
    const r = await cli(['encryption-keys', 'delete', id, '--yes', '-q']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${id}\n`);
  });
});
