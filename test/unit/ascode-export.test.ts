// Issue 23 finding 13: export writes a reference, never the value, for a
// config value whose key looks secret or whose own `type` says password.
import { describe, expect, it } from 'vitest';
import { exportState } from '../../src/ascode/export.js';
import { jobOf } from '../../src/ascode/state.js';

const record = (config: Record<string, { value: string | number; type: string }>) => ({
  id: '3f2b1c9e-8d4a-4b7e-9c1d-2a5e6f7a8b9c',
  name: 'app',
  recipe: 'custom-app',
  compute: { type: 'ss_agent' },
  config: Object.fromEntries(Object.entries(config).map(([k, v]) => [k, { ...v, label: k }])),
  schedule: [],
  storage: [],
});

describe('export of config values', () => {
  it('secret-like keys and password-typed values become ${env:} references; the rest stays', () => {
    const job = jobOf(
      record({
        dsn: { value: 'postgres://u:pw@db/app', type: 'text' },
        credential: { value: 'c-1', type: 'text' },
        aws_access_key: { value: 'AKIA', type: 'text' },
        auth: { value: 'basic x', type: 'text' },
        db_pwd: { value: 'pw', type: 'text' },
        connection: { value: 'clear-but-password-typed', type: 'password' },
        mysql_password: { value: 'p', type: 'text' },
        root_path: { value: '/srv', type: 'text' },
        author: { value: 'Ann', type: 'text' },
        compression_level: { value: 6, type: 'number' },
      }),
    );
    const { file } = exportState({ jobs: [job], storage: [], servers: [] }, ['jobs']);
    const config = file.jobs!.app!.config!;
    for (const k of ['dsn', 'credential', 'aws_access_key', 'auth', 'db_pwd', 'connection', 'mysql_password']) {
      expect(config[k], k).toBe(`\${env:BACKUPCTL_JOB_APP_${k.toUpperCase()}}`);
    }
    expect(config.root_path).toBe('/srv');
    expect(config.author).toBe('Ann');
    expect(config.compression_level).toBe(6);
  });
});

describe('recipe ids the team\'s jobs show', () => {
  it('a job record with recipe_id beside its slug makes the pair known to plan and export', async () => {
    const { knownRecipes } = await import('../../src/ascode/recipes.js');
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(`${tmpdir()}/backupctl-recipes-`);
    try {
      const job = jobOf({ ...record({}), name: 'site', recipe: 'files', recipe_id: 1 });
      const ids = await knownRecipes(dir, 'http://127.0.0.1:1', [job]);
      expect(ids.problem('files', 3)).toBe('files is recipe_id 1, not 3 (job "site" shows it)');
      expect(ids.problem('mysql', 1)).toBe('recipe_id 1 is files, not mysql (job "site" shows it)');
      expect(ids.problem('files', 1)).toBeUndefined();
      const { file } = exportState({ jobs: [job], storage: [], servers: [] }, ['jobs'], ids);
      expect(file.jobs!.site!.recipe_id).toBe(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
