// restore-test --into postgres://…: psql's version and the read-only probe of the server are asked
// while the job and its backup are looked up (SqlEngine.prewarm), not after the dump's first bytes.
// What must hold: that early work only ever reads (no CREATE, DROP, ALTER or GRANT reaches the
// server before a PostgreSQL dump is known), it never happens under --dry-run, and a command that
// fails at the job lookup fails as it did before. A fake psql first on PATH records each call:
// its arguments and what it was sent on stdin.
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { emulatorSession } from '../helpers/emulator.js';

// Each answer of the API comes after 800 ms: psql's version and the probe (tens of ms) are asked well within the lookup.
const { cli } = emulatorSession({ seed: 'demo', latencyMs: 800, timeoutMs: 60_000 });
const dir = mkdtempSync(path.join(tmpdir(), 'backupctl-fake-psql-'));
const log = path.join(dir, 'calls.log');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Answers --version as a psql with \restrict would; any session: records its stdin, prints nothing.
writeFileSync(
  path.join(dir, 'psql'),
  `#!/bin/sh
printf '=== %s\\n' "$*" >> '${log}'
case "$1" in --version) echo 'psql (PostgreSQL) 17.6'; exit 0 ;; esac
cat >> '${log}'
exit 0
`,
);
chmodSync(path.join(dir, 'psql'), 0o755);
const PATH = `${dir}${path.delimiter}${process.env.PATH ?? ''}`;
const INTO = 'postgres://restore@127.0.0.1:1/postgres';
const calls = () => (existsSync(log) ? readFileSync(log, 'utf8') : '');
const fresh = () => rmSync(log, { force: true });

describe('restore-test --into: the read-only probe runs while the job is looked up', () => {
  it('--dry-run runs no psql at all', async () => {
    fresh();
    const r = await cli(['restore-test', 'api postgres', '--into', INTO, '--dry-run'], { PATH });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/GET \/v1\/jobs/);
    expect(calls()).toBe('');
  });

  it('a job that does not exist: exit 5 as without --into; psql was asked only its version and read-only questions', async () => {
    fresh();
    const r = await cli(['restore-test', '0b5e7a1c-0000-4000-8000-0000000000ff', '--into', INTO], { PATH });
    expect(r.code, r.stderr).toBe(5);
    const without = await cli(['restore-test', '0b5e7a1c-0000-4000-8000-0000000000ff'], { PATH });
    expect(without.code).toBe(5);
    expect(without.stderr).toBe(r.stderr);
    const seen = calls();
    // The probe started before the 404 came back (the lookup is one round trip; the probe follows psql --version).
    expect(seen).toMatch(/^=== --version$/m);
    const statements = seen
      .split('\n')
      .filter((l) => !l.startsWith('=== ') && !l.startsWith('\\restrict '))
      .join('\n')
      .split(/;\s*\n/)
      .map((s) => s.trim())
      .filter(Boolean);
    expect(statements.length).toBeGreaterThan(3);
    for (const s of statements) expect(s, s).toMatch(/^(SHOW|SELECT)\b/);
    expect(seen).not.toMatch(/\b(CREATE|DROP|ALTER|GRANT|REVOKE|INSERT|UPDATE|DELETE)\b/);
  });

  it('a files backup with --into postgres: restored by extraction; nothing but reads reached psql', { timeout: 60_000 }, async () => {
    fresh();
    const r = await cli(['restore-test', 'archive files', '--into', INTO, '--json'], { PATH });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).backups[0].files.some((f: { engine: { mode: string } | null }) => f.engine?.mode === 'extract')).toBe(true);
    expect(calls()).not.toMatch(/\b(CREATE|DROP|ALTER|GRANT|REVOKE)\b/);
  });
});
