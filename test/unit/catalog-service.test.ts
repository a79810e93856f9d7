// The catalog and the marks name a service with ONE key (src/state/marks.ts
// serviceKey: base URL and account): two tokens on one URL keep two catalogs,
// and a catalog folder an older version kept for the URL alone is adopted, not
// lost (its fingerprints are the jobs' baselines; expired backups cannot be read again).
import { mkdtempSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { Catalog, catalogFolder, legacyCatalogFolder } from '../../src/state/catalog.js';
import { serviceKey } from '../../src/state/marks.js';

const URL_ = 'http://127.0.0.1:4010/';
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const temp = () => {
  const d = mkdtempSync(path.join(tmpdir(), 'backupctl-catalog-key-'));
  dirs.push(d);
  return d;
};

describe('the catalog keys a service as the marks do', () => {
  it('is named by the marks service key: the URL and the account', () => {
    const a = catalogFolder(URL_, 'token-a');
    expect(a).toBe(`127.0.0.1_4010-${createHash('sha256').update(serviceKey(URL_, 'token-a')).digest('hex').slice(0, 12)}`);
    expect(catalogFolder(URL_, 'token-b')).not.toBe(a);
    expect(catalogFolder('http://127.0.0.1:4010', 'token-a')).toBe(a);
    expect(new Catalog('/s', URL_, 'token-a').dir).toBe(path.join('/s', 'catalog', a));
    // Never the token itself.
    expect(a).not.toContain('token-a');
  });

  it('two accounts on one URL never see each other\'s fingerprints', async () => {
    const state = temp();
    const a = await Catalog.open(state, URL_, 'token-a');
    await a.save({ version: 1, backup_id: 'b1', job_id: 'j1', created_at: null, recorded_at: 'x', recorded_by: 'scan', read_verdict: 'passed', size_bytes: 1, duration_s: null, files: [] });
    const b = await Catalog.open(state, URL_, 'token-b');
    expect(await b.get('b1')).toBeUndefined();
    expect((await a.get('b1'))?.job_id).toBe('j1');
  });

  it('adopts the folder an older version kept for the URL alone, once', async () => {
    const state = temp();
    const legacy = path.join(state, 'catalog', legacyCatalogFolder(URL_));
    mkdirSync(path.join(legacy, 'b0'), { recursive: true });
    const fp = { version: 1, backup_id: 'b0', job_id: 'j1', created_at: '2026-01-01T00:00:00Z', recorded_at: 'x', recorded_by: 'verify', read_verdict: 'passed', size_bytes: 5, duration_s: null, files: [] };
    writeFileSync(path.join(legacy, 'b0', 'fingerprint.json'), JSON.stringify(fp));
    const a = await Catalog.open(state, URL_, 'token-a');
    expect((await a.ofJob('j1')).map((f) => f.backup_id)).toEqual(['b0']);
    expect(readdirSync(path.join(state, 'catalog'))).toEqual([catalogFolder(URL_, 'token-a')]);
    // A second account of the same URL finds it taken: it starts its own.
    expect(await (await Catalog.open(state, URL_, 'token-b')).ofJob('j1')).toEqual([]);
  });
});
