// Issue 25 §17: status and report share one reader (src/fleet/) and neutral helpers (src/output/,
// src/util/); report imports nothing of status, so neither feature is the other's library.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

const importsOf = (file: string) => [...readFileSync(path.join(ROOT, file), 'utf8').matchAll(/(?:from\s+|import\()\s*'([^']+)'/g)].map((m) => m[1]!);
const report = [...readdirSync(path.join(ROOT, 'src/report')).map((f) => `src/report/${f}`), 'src/commands/report.ts'];

describe('layers of status and report', () => {
  it('report imports nothing from src/status/', () => {
    const offending = report.flatMap((f) => importsOf(f).filter((i) => i.includes('/status/')).map((i) => `${f} -> ${i}`));
    expect(offending).toEqual([]);
  });

  it('one reader: neither collector pages through a list by hand', () => {
    for (const f of ['src/status/collect.ts', 'src/report/collect.ts']) {
      const text = readFileSync(path.join(ROOT, f), 'utf8');
      expect(text, f).not.toMatch(/nextPageQuery\([^)]*\)\s*:/);
      expect(text, f).not.toMatch(/for \(let page = 0/);
      expect(importsOf(f), f).toContain('../fleet/reader.js');
    }
  });
});
