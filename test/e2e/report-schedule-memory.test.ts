// Issue 42.5: the service keeps one updated_at per job and bumps it for any edit, so a retention-only `apply`
// made `report` call the runs before it "unknown: schedule changed" (a missed run turned into 100% success).
// apply remembers each job's schedule timing before it edits the job, and report keeps the earlier change
// time while the timing is the one remembered (src/state/schedule-timing.ts, src/fleet/timing.ts).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { runCli } from '../helpers/cli.js';
import { emulatorEnv, startTestEmulator } from '../helpers/emulator.js';
import type { Emulator } from '../../src/emulator/index.js';
import { timingChangedAt } from '../../src/state/schedule-timing.js';

let emu: Emulator;
let dir: string;
const JOB = 'api postgres';

function secretsOf(text: string): Record<string, string> {
  return Object.fromEntries([...text.matchAll(/\$\{env:([A-Z0-9_]+)\}/g)].map((m) => [m[1]!, `value-of-${m[1]}`]));
}
const run = (args: string[], extra: Record<string, string> = {}) =>
  runCli(args, { env: { ...emulatorEnv(emu), BACKUPCTL_CONFIG_DIR: path.join(dir, 'config'), XDG_STATE_HOME: path.join(dir, 'state'), ...extra }, timeoutMs: 60_000 });

interface Entry {
  expected: number;
  completed: number;
  missed: number;
  unknown: number;
  success_rate: number | null;
  notes: string[];
}
async function reportOf(): Promise<Entry> {
  const r = await run(['report', '--since', '7d', '--job', JOB, '--json']);
  expect(r.code).toBe(0);
  const e = JSON.parse(r.stdout).jobs[0] as Entry;
  return { expected: e.expected, completed: e.completed, missed: e.missed, unknown: e.unknown, success_rate: e.success_rate, notes: e.notes };
}
/** Exports the set-up, edits it, applies it. */
async function applyEdit(edit: (doc: ReturnType<typeof parseDocument>) => void): Promise<void> {
  const file = path.join(dir, 'backups.yaml');
  expect((await run(['export', '-f', file])).code).toBe(0);
  const text = readFileSync(file, 'utf8');
  const doc = parseDocument(text);
  edit(doc);
  writeFileSync(file, doc.toString());
  const r = await run(['apply', '-f', file, '--yes', '--allow-expiry'], secretsOf(text));
  expect(r.stderr).toContain(`~ job "${JOB}": done`);
  expect(r.code).toBe(0);
}

describe('report after apply', () => {
  beforeAll(async () => {
    emu = await startTestEmulator();
    dir = mkdtempSync(path.join(tmpdir(), 'backupctl-timing-'));
  });
  afterAll(async () => {
    await emu?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('a retention-only apply leaves the report as it was: no "schedule changed", no run turned unknown', async () => {
    const before = await reportOf();
    expect(before.notes.join('\n')).not.toContain('schedule changed');
    await applyEdit((doc) => doc.setIn(['jobs', JOB, 'schedules', 0, 'retention', 'daily'], 9));
    expect(await reportOf()).toEqual(before);
  });

  it('an apply that moves the schedule is a schedule change, as before', async () => {
    await applyEdit((doc) => doc.setIn(['jobs', JOB, 'schedules', 0, 'cron'], '15 */6 * * *'));
    const after = await reportOf();
    expect(after.notes.join('\n')).toMatch(/schedule changed on \d{4}-\d{2}-\d{2}/);
  });
});

describe('timingChangedAt', () => {
  it('keeps the first sighting while the timing is the same, and takes updated_at for a new timing or none known', () => {
    expect(timingChangedAt(undefined, 'a', 500)).toBe(500);
    expect(timingChangedAt({ timing: 'a', since: 100 }, 'a', 500)).toBe(100);
    expect(timingChangedAt({ timing: 'a', since: 100 }, 'b', 500)).toBe(500);
    // A record from after this updated_at (another service's clock, an older answer) is no evidence.
    expect(timingChangedAt({ timing: 'a', since: 600 }, 'a', 500)).toBe(500);
  });
});
