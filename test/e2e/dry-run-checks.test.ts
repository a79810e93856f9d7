// --dry-run checks the input as the real run does, then prints the request:
// a command the real run refuses with exit 2 must not print a request and
// exit 0 under --dry-run (issue 23 §17).
import { describe, expect, it } from 'vitest';
import { withEmulatorCli } from '../helpers/emulator.js';

const { emu, cli, sent } = withEmulatorCli();

/** Runs the command with and without --dry-run: both exit 2 with the same message, and nothing is sent, not even a name look-up. */
async function refusedAlike(args: string[], message: string) {
  emu.clearRequests();
  const real = await cli(args);
  const dry = await cli([...args, '--dry-run']);
  expect(real.code, real.stderr).toBe(2);
  expect(dry.code, dry.stderr).toBe(2);
  expect(real.stderr).toContain(message);
  expect(dry.stderr).toContain(message);
  expect(dry.stdout).toBe('');
  expect(sent()).toEqual([]);
}

describe('--dry-run runs the checks first', () => {
  it('accounts update with nothing to update', () => refusedAlike(['accounts', 'update', '1'], 'nothing to update'));
  it('storage update with nothing to update', () => refusedAlike(['storage', 'update', '1'], 'nothing to update'));
  it('jobs update with nothing to update', () => refusedAlike(['jobs', 'update', 'web-01 files'], 'nothing to update'));
  it('jobs schedule update with nothing to update', () => refusedAlike(['jobs', 'schedule', 'update', 'web-01 files', '1'], 'nothing to update'));
  it('droplets update with nothing to update', () => refusedAlike(['droplets', 'update', '1'], 'nothing to update'));
  it('droplets activate without a retention count', () =>
    refusedAlike(['droplets', 'activate', '1', '--frequency', '24', '--timezone', 'UTC'], 'retention'));
  it('jobs backup delete with neither a backup nor --all', () => refusedAlike(['jobs', 'backup', 'delete', 'web-01 files'], '--all'));
  it('droplets snapshot delete with neither a snapshot nor --all', () => refusedAlike(['droplets', 'snapshot', 'delete', '1'], '--all'));
  it('a valid update still prints its request and sends nothing', async () => {
    const r = await cli(['accounts', 'update', '1', '--name', 'renamed', '--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('curl -X PATCH');
    expect(r.stdout).toContain('"name":"renamed"');
  });
});

describe('--dry-run runs the validation hooks first', () => {
  it('encryption-keys create with a private key: exit 2, and the key is not printed', async () => {
    const { generateKeyPairSync } = await import('node:crypto');
    const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const path = await import('node:path');
    const pem = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const dir = mkdtempSync(path.join(tmpdir(), 'backupctl-dry-'));
    try {
      const file = path.join(dir, 'backup.key');
      writeFileSync(file, pem);
      const r = await cli(['encryption-keys', 'create', '--name', 'k', '--public-key-file', file, '--dry-run']);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('PRIVATE key');
      expect(r.stdout + r.stderr).not.toContain(pem.split('\n')[1]!);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  it('servers code prints the line alone, from the spec', async () => {
    const r = await cli(['servers', 'code', '--key', '1']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n').filter(Boolean)).toHaveLength(1);
  });
});
