// docs/backups-as-code.md: every `backupctl ...` line of its sh blocks, in
// order, in one folder, against the demo emulator, with no secret set: each
// exits 0 (the demo's set-up matches the file export wrote).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCli, tempConfigDir } from '../helpers/cli.js';
import { apiRequests, emulatorEnv, startTestEmulator } from '../helpers/emulator.js';
import type { Emulator } from '../../src/emulator/index.js';

/** A line of a POSIX sh block as argv: words, with '...' and "..." quotes. */
function words(line: string): string[] {
  return [...line.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]!);
}

const doc = readFileSync(path.join(ROOT, 'docs', 'backups-as-code.md'), 'utf8');
const examples = [...doc.matchAll(/```sh\n([^]*?)```/g)].flatMap((m) => m[1]!.split('\n').filter((l) => l.startsWith('backupctl ')));

let emu: Emulator;
let dir: string;
let config: { dir: string; cleanup: () => void };
beforeAll(async () => {
  emu = await startTestEmulator();
  dir = mkdtempSync(path.join(tmpdir(), 'backupctl-ascode-docs-'));
  config = tempConfigDir();
});
afterAll(async () => {
  await emu.close();
  rmSync(dir, { recursive: true, force: true });
  config.cleanup();
});

describe('docs/backups-as-code.md', () => {
  it('has examples', () => expect(examples.length).toBeGreaterThanOrEqual(5));
  it('runs each example against the demo emulator: exit 0, and no change sent', async () => {
    for (const line of examples) {
      const r = await runCli(words(line).slice(1), {
        cwd: dir,
        env: { ...emulatorEnv(emu), BACKUPCTL_CONFIG_DIR: config.dir, XDG_STATE_HOME: dir },
        timeoutMs: 30_000,
      });
      expect(r.code, `${line}\n${r.stderr}`).toBe(0);
    }
    expect(apiRequests(emu).filter((r) => r.method !== 'GET')).toEqual([]);
  });
});
