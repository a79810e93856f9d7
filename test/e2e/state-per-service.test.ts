// Every state file is keyed by service (issue 42 §10): retention's predictions were kept by job id
// alone, so two services with the same job ids (two profiles) mixed ("0 of 35 predictions held").
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { emulatorSession } from '../helpers/emulator.js';

const NOW = Date.parse('2026-02-28T23:30:00Z');

describe('retention predictions of two services in one state folder', () => {
  // The same demo (the same job ids), its history laid back from two clocks a week apart: other backups.
  const a = emulatorSession({ now: NOW });
  const b = emulatorSession({ now: NOW + 7 * 86_400_000, dialect: 'published' });
  const shared = mkdtempSync(path.join(tmpdir(), 'backupctl-shared-state-'));
  afterAll(() => rmSync(shared, { recursive: true, force: true }));
  const env = { XDG_STATE_HOME: shared };

  it('each service audits its own predictions', async () => {
    expect((await a.cli(['retention', 'api postgres', '-q'], env)).code).toBe(0);
    expect((await b.cli(['retention', 'api postgres', '-q'], env)).code).toBe(0);
    const audit = await a.cli(['retention', 'api postgres', '--audit', '--json'], env);
    expect(audit.code, audit.stderr).toBe(0);
    const result = JSON.parse(audit.stdout)[0] ?? JSON.parse(audit.stdout);
    expect(result.predictions).toBeGreaterThan(0);
    expect(result.held).toBe(result.predictions);
    const keys = Object.keys(JSON.parse(readFileSync(path.join(shared, 'backupctl', 'retention-predictions.json'), 'utf8')).targets);
    expect(keys).toHaveLength(2);
    expect(keys.every((k) => / job:/.test(k))).toBe(true);
  });
});
