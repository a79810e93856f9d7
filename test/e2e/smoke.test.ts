// Every list and get command against the demo seed, the three ways a user
// meets it: a table, piped (tsv), and --json. Generated from the manifest, so
// a new resource is covered without a new test.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../helpers/cli.js';
import { withEmulatorCli } from '../helpers/emulator.js';
import type { Manifest, ManifestCommand } from '../../src/contract/spec.js';

const manifest = JSON.parse(readFileSync(path.join(ROOT, 'dist', 'manifest.json'), 'utf8')) as Manifest;
const { cli } = withEmulatorCli({ seed: 'demo' });


const positionals = (c: ManifestCommand) => c.params.filter((p) => p.positional);
const lists = manifest.commands.filter((c) => c.endpoint && c.output.kind === 'list' && positionals(c).length === 0);
const gets = manifest.commands.filter(
  (c) => c.endpoint && c.method === 'GET' && c.output.kind === 'record' && c.path[c.path.length - 1] === 'get' && positionals(c).length === 1,
);

describe('every top-level list works as a table, piped and as JSON', () => {
  for (const c of lists) {
    it(c.path.join(' '), async () => {
      const json = await cli([...c.path, '--json']);
      expect(json.code, json.stderr).toBe(0);
      const records = JSON.parse(json.stdout);
      expect(Array.isArray(records)).toBe(true);
      const tsv = await cli([...c.path]);
      expect(tsv.code, tsv.stderr).toBe(0);
      expect(tsv.stdout.split('\n').filter(Boolean)).toHaveLength(records.length);
      const table = await cli([...c.path, '-o', 'table']);
      expect(table.code, table.stderr).toBe(0);
      if (records.length) expect(table.stdout.split('\n')[0]).toMatch(/^ID\s/i);
      expect(table.stdout).not.toContain('\u001b');
    });
  }
});

describe('every get shows the first record of its list', () => {
  for (const c of gets) {
    const list = lists.find((l) => l.path[0] === c.path[0]);
    if (!list) continue;
    it(c.path.join(' '), async () => {
      const ids = await cli([...list.path, '-q']);
      const id = ids.stdout.split('\n').find(Boolean);
      expect(id, `${list.path.join(' ')} -q printed no id`).toBeTruthy();
      const json = await cli([...c.path, id!, '--json']);
      expect(json.code, json.stderr).toBe(0);
      expect(String(JSON.parse(json.stdout).id)).toBe(id);
      const table = await cli([...c.path, id!, '-o', 'table']);
      expect(table.code, table.stderr).toBe(0);
      expect(table.stdout.length).toBeGreaterThan(0);
    });
  }
});
