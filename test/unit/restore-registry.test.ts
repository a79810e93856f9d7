// The registry of restore engines (src/restore/registry.ts): one engine per kind, ids unique, and what
// the dispatcher makes of a kind is what the engine that lists it says (issue 43 §2).
import { describe, expect, it } from 'vitest';
import { KIND_IDS, KINDS } from '../../src/pipeline/kinds.js';
import { ENGINES, engineById, engineOf } from '../../src/restore/registry.js';
import { mysqlEngine } from '../../src/restore/sql/mysql.js';
import { postgresEngine } from '../../src/restore/sql/postgres.js';

describe('the registry of restore engines', () => {
  it('ids are unique; no kind is taken by two engines; every kind an engine lists is a kind of the sniffer', () => {
    const ids = ENGINES.map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    const taken = ENGINES.flatMap((e) => e.kinds);
    expect(new Set(taken).size).toBe(taken.length);
    for (const k of taken) expect(KIND_IDS).toContain(k);
    for (const e of ENGINES) expect(engineById(e.id)).toBe(e);
    expect(engineById('no-such-engine')).toBeUndefined();
  });

  it('which kinds are restored, and by whom', () => {
    expect(Object.fromEntries(KIND_IDS.map((k) => [k, engineOf(k)?.id ?? null]))).toEqual({
      mysql: 'mysql',
      'pg-plain': 'postgres',
      'pg-custom': 'postgres',
      sqlite: 'sqlite',
      'sqlite-dump': 'sqlite',
      'mongo-archive': 'mongo-archive',
      tar: 'files',
      zip: 'files',
      sha256sums: null,
      'openssl-enc': null,
      age: null,
      openpgp: null,
      gzip: null,
      unknown: null,
    });
    // Encrypted bytes are never anyone's.
    for (const k of KIND_IDS.filter((k) => KINDS[k].encrypted)) expect(engineOf(k)).toBeUndefined();
  });

  it('the SQL server engines restore the kinds their registry entries list', () => {
    expect([...postgresEngine.kinds].sort()).toEqual([...engineById('postgres')!.kinds].sort());
    expect([...mysqlEngine.kinds].sort()).toEqual([...engineById('mysql')!.kinds].sort());
  });

  it('each engine says where it runs, what a user adds, and what it does with each of its kinds', () => {
    for (const e of ENGINES) {
      expect(e.placements.length).toBeGreaterThan(0);
      for (const k of e.kinds) expect(e.does(k).length).toBeGreaterThan(40);
    }
    expect(Object.fromEntries(ENGINES.map((e) => [e.id, [e.placements.join('/'), e.userCheck, e.lists]]))).toEqual({
      postgres: ['server/local/embedded', 'assert', 'tables'],
      mysql: ['server/local', 'assert', 'tables'],
      sqlite: ['embedded', 'assert', 'tables'],
      'mongo-archive': ['embedded', null, 'collections'],
      files: ['embedded', 'exec', 'files'],
    });
  });
});
