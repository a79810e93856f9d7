// `backupctl help <topic>`: the texts a cron author or script writer reads,
// checked against what the code really does.
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { ROOT, runCli } from '../helpers/cli.js';
import { ExitCode } from '../../src/errors.js';

/** Every .ts file under src/ except the emulator (which has its own settings). */
function sourceFiles(dir = path.join(ROOT, 'src')): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return name === 'emulator' ? [] : sourceFiles(full);
    // .cjs: src/boot.cjs, which loads the bundle (and its code cache) before anything else.
    return full.endsWith('.ts') || full.endsWith('.cjs') ? [full] : [];
  });
}

/** Environment variables the CLI reads: env.NAME, env['NAME'] and envValue(env, 'NAME'). */
function variablesRead(): string[] {
  const names = new Set<string>();
  for (const file of sourceFiles()) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/\benv(?:\.([A-Z][A-Z0-9_]+)|\[['"]([A-Z][A-Z0-9_]+)['"]\])/g)) names.add((m[1] ?? m[2])!);
    for (const m of text.matchAll(/envValue\(\s*\w+(?:\.\w+)?,\s*['"]([A-Z][A-Z0-9_]+)['"]/g)) names.add(m[1]!);
  }
  return [...names].sort();
}

describe('backupctl help exit-codes', () => {
  it('gives every exit code the CLI uses one line', async () => {
    const r = await runCli(['help', 'exit-codes']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    for (const code of new Set(Object.values(ExitCode))) {
      const lines = r.stdout.split('\n').filter((l) => new RegExp(`^\\s+${code}\\s+\\S`).test(l));
      expect(lines, `exit code ${code}`).toHaveLength(1);
    }
    expect(r.stdout).toMatch(/^\s+5\s+not found: 404$/m);
    expect(r.stdout).toMatch(/^\s+10\s+another run holds the lock \(--lock\)$/m);
  });
});

describe('backupctl help environment', () => {
  it('names every environment variable the CLI reads', async () => {
    const r = await runCli(['help', 'environment']);
    expect(r.code).toBe(0);
    const read = variablesRead();
    expect(read).toEqual(expect.arrayContaining(['BACKUPCTL_BASE_URL', 'BACKUPCTL_TOKEN', 'BACKUPCTL_CONFIG_DIR', 'NO_COLOR']));
    for (const name of [
      ...read,
      'BACKUPCTL_PROFILE',
      'BACKUPCTL_OUTPUT',
      'BACKUPCTL_TIMEOUT',
      'BACKUPCTL_DEBUG',
      'XDG_CONFIG_HOME',
      'FORCE_COLOR',
      'HTTPS_PROXY',
      'HTTP_PROXY',
      'NO_PROXY',
      'NODE_EXTRA_CA_CERTS',
    ]) {
      expect(r.stdout, name).toMatch(new RegExp(`\\b${name}\\b`));
    }
  });
});

describe('backupctl help cron', () => {
  it('gives a ready crontab line, what each exit code means there, and how to check last night\'s backup', async () => {
    const r = await runCli(['help', 'cron']);
    expect(r.code).toBe(0);
    const crontab = r.stdout.split('\n').find((l) => /^\s*15 2 \* \* \* /.test(l));
    expect(crontab).toBeDefined();
    for (const part of ['BACKUPCTL_PROFILE=', 'jobs backup start <job>', '--wait', '--wait-timeout', '--jitter', '--lock', '--healthcheck-url', '2>&1']) {
      expect(crontab).toContain(part);
    }
    for (const code of [0, 3, 4, 6, 7, 8, 10]) expect(r.stdout).toMatch(new RegExp(`^\\s+${code}\\s+\\S`, 'm'));
    expect(r.stdout).toContain('jobs backup latest <job>');
    expect(r.stdout).toContain('--max-age 26h');
  });
});

describe('help topics', () => {
  it('lists the topics when one is unknown, exit 2', async () => {
    const r = await runCli(['help', 'cronjobs']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('exit-codes, environment, cron');
  });
});
