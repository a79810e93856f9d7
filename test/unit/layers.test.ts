// The layout as a rule (issue 25 §18, made strict by issue 31 §6): no import circle
// anywhere in src/ (what `npx madge --circular --extensions ts src` reports; type-only
// and dynamic imports count), and every direction between two folders is declared: the
// folders stand on floors, and an import goes to a lower floor, never up and never
// sideways to a folder on the same floor. A new folder fails the test until it is placed.
import madge from 'madge';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** The floors of src/, from the ground up. Each folder (or top file) stands on exactly one. */
const FLOORS: ReadonlyArray<ReadonlyArray<string>> = [
  // Ground: small helpers, the typed errors, and the contract (the types of a command's context and of a spec).
  ['util', 'errors.ts', 'contract'],
  // The config layer and the output layer; the emulator is a program of its own that uses util only.
  ['config', 'output', 'emulator'],
  // HTTP to the service; what backupctl remembers between runs (marks, the catalog, verify's ledger).
  ['http', 'state'],
  // What a backup record means (status, newest, sizes); the framework a spec is run by (values, names, requests).
  ['backups', 'cli'],
  // The one read pipeline (select, transfer, decrypt, the content stage, the SQL reader); shell completion.
  ['pipeline', 'completion'],
  // The pipeline's users: verify, restore-test's engines, the catalog's fingerprints, and running a job (cron helper, downloads).
  ['verify', 'restore', 'catalog', 'jobs'],
  // The resource specs: one description per endpoint.
  ['resources'],
  // What status and report both read (fleet), and backups as code.
  ['fleet', 'ascode'],
  // The features that read the fleet.
  ['status', 'report', 'retention'],
  // Commands: the handlers, the registry of every module and the runner that loads one.
  ['commands'],
  // What runs the commands: the entry point, and build-time code that loads every module.
  ['main.ts', 'build'],
];

const FLOOR_OF = new Map(FLOORS.flatMap((floor, i) => floor.map((unit) => [unit, i] as const)));

/** Known faults, `from -> to` by folder. Empty: a test below fails on an entry that no longer matches an import. */
const ALLOWED = new Set<string>([]);

function placeOf(file: string): { unit: string; layer: number } {
  const top = file.split('/')[0]!;
  const layer = FLOOR_OF.get(top);
  if (layer === undefined) throw new Error(`src/${file}: its folder "${top}" stands on no floor in test/unit/layers.test.ts`);
  return { unit: top, layer };
}

let graph: Record<string, string[]>;
let circles: string[][];

beforeAll(async () => {
  const result = await madge(path.join(ROOT, 'src'), { fileExtensions: ['ts'] });
  graph = result.obj();
  circles = result.circular();
}, 60_000);

/** Every import that goes up a layer, or from one feature to another: `from -> to` with the files. */
function faults(): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const [file, deps] of Object.entries(graph)) {
    const from = placeOf(file);
    for (const dep of deps) {
      const to = placeOf(dep);
      if (from.unit === to.unit) continue;
      if (to.layer < from.layer) continue;
      const key = `${from.unit} -> ${to.unit}`;
      found.set(key, [...(found.get(key) ?? []), `${file} -> ${dep}`]);
    }
  }
  return found;
}

describe('the layout of src/', () => {
  it('has no import circle (madge --circular --extensions ts src)', () => {
    expect(Object.keys(graph).length).toBeGreaterThan(100);
    expect(circles.map((c) => c.join(' > '))).toEqual([]);
  });

  it('every import goes to a lower floor: never up, never sideways between two folders of one floor', () => {
    const unexpected = [...faults()].filter(([key]) => !ALLOWED.has(key)).flatMap(([, files]) => files);
    expect(unexpected).toEqual([]);
  });

  it('the allow-list holds only faults that still exist (empty it as they are fixed)', () => {
    const found = faults();
    expect([...ALLOWED].filter((key) => !found.has(key))).toEqual([]);
  });

  it('restore/servers/ (what any engine that starts or reaches a server uses) imports no engine: nothing else of restore/', () => {
    const servers = Object.keys(graph).filter((f) => f.startsWith('restore/servers/'));
    expect(servers.length).toBeGreaterThanOrEqual(3);
    const reach = servers.flatMap((f) => graph[f]!.filter((d) => d.startsWith('restore/') && !d.startsWith('restore/servers/')).map((d) => `${f} -> ${d}`));
    expect(reach).toEqual([]);
    // And the SQL engines use it from there: no copy of the helpers is left under restore/sql/.
    expect(Object.keys(graph).filter((f) => /^restore\/sql\/(ephemeral|proc|url)\.ts$/.test(f))).toEqual([]);
  });

  it('finds a fault it is shown (the rule is not vacuous)', () => {
    const saved = graph;
    graph = { ...saved, 'util/probe.ts': ['commands/status.ts'], 'status/probe.ts': ['report/compute.ts'], 'pipeline/probe.ts': ['verify/run.ts'] };
    try {
      expect([...faults().keys()]).toEqual(expect.arrayContaining(['util -> commands', 'status -> report', 'pipeline -> verify']));
    } finally {
      graph = saved;
    }
  });
});
