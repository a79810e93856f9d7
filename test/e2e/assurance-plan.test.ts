// Assurance plans as code (issue 44 §1): the `assurance` section of the backups file, checked and
// shown by plan (local policy: nothing is sent), refused with the field named (exit 2).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { emulatorSession, apiRequests } from '../helpers/emulator.js';

const dir = mkdtempSync(path.join(tmpdir(), 'backupctl-assurance-plan-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string) => {
  const p = path.join(dir, name);
  writeFileSync(p, text);
  return p;
};

describe('plan with an assurance section', () => {
  const s = emulatorSession();

  it('shows the plan of each job (exact name before a glob), counts no change, sends only GETs', async () => {
    const f = file(
      'good.yaml',
      [
        'version: 1',
        'assurance:',
        '  "api postgres":',
        '    restore_test_every: 7d',
        '    backup: random',
        '    within: 30d',
        '    rto: 15m',
        '    validations:',
        '      - sql: "SELECT count(*) FROM orders"',
        '        expect: "> 0"',
        '      - table_exists: orders',
        '      - min_rows: { table: orders, rows: 10 }',
        '  "* postgres":',
        '    verify_every: 1d',
        '  "* mysql":',
        '    verify_every: 12h',
        '',
      ].join('\n'),
    );
    s.emu.clearRequests();
    const r = await s.cli(['plan', '-f', f]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Assurance plans (local policy for assure run; nothing is sent): 2 jobs covered.');
    expect(r.stdout).toContain('"api postgres": restore-test every 7d, a random backup of the last 30d, RTO 15m, 3 validations');
    expect(r.stdout).toContain('"shop mysql" (by "* mysql"): verify every 12h, the latest backup');
    expect(apiRequests(s.emu).every((q) => q.method === 'GET')).toBe(true);
    const j = await s.cli(['plan', '-f', f, '--json']);
    const doc = JSON.parse(j.stdout) as { assurance: Array<Record<string, unknown>>; summary: Record<string, number> };
    expect(doc.summary).toEqual({ create: 0, update: 0, replace: 0, delete: 0 });
    expect(doc.assurance.find((a) => a.job === 'api postgres')).toMatchObject({ selector: 'api postgres', backup: 'random', within: '30d', rto: '15m', validations: 3, verify_every: null });
  });

  it.each([
    ['an unknown job, with the near name', '  "api postgress":\n    verify_every: 1d\n', /:\d+:\d+: assurance\."api postgress": unknown job "api postgress": did you mean "api postgres"\?/],
    ['a bad duration', '  "api postgres":\n    verify_every: 7x\n', /:4:19: assurance\."api postgres"\.verify_every: "7x" is not a duration/],
    ['an assertion that writes', '  "api postgres":\n    restore_test_every: 7d\n    validations:\n      - sql: "DELETE FROM orders"\n        expect: "0"\n', /assurance\."api postgres"\.validations\[0\]\.sql: must be one SELECT statement/],
    ['sql without expect', '  "api postgres":\n    restore_test_every: 7d\n    validations:\n      - sql: "SELECT 1"\n', /assurance\."api postgres"\.validations\[0\]: "expect" is required with sql/],
    ['a malformed expect', '  "api postgres":\n    restore_test_every: 7d\n    validations:\n      - sql: "SELECT 1"\n        expect: ">"\n', /validations\[0\]\.expect: ">" is not an expected value/],
    ['a glob that matches nothing', '  "nothing-*":\n    verify_every: 1d\n', /assurance\."nothing-\*": the glob "nothing-\*" matches no job/],
    ['an unknown key', '  "api postgres":\n    verify_evry: 1d\n', /unknown key "verify_evry": did you mean "verify_every"\?/],
  ])('refuses %s, naming the field (exit 2)', async (_what, body, message) => {
    const r = await s.cli(['plan', '-f', file('bad.yaml', `version: 1\nassurance:\n${body}`)]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe('');
  });
});
