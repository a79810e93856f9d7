// The build's start-up plugin (src/scripts/lazy-builtins.mjs): stand-ins for
// node built-ins that dependencies load but backupctl never uses, and the
// guarded patches to undici's sources. The e2e suite runs every request
// through the patched undici; these check the pieces themselves
// (test/e2e/startup.test.ts checks the built CLI leaves the modules unloaded).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import http2 from 'node:http2';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a build script without type declarations
import { UNDICI_PATCHES, leftOutSource, patchSource, standInSource } from '../../src/scripts/lazy-builtins.mjs';
import { ROOT } from '../helpers/cli.js';

const require = createRequire(import.meta.url);

/** Evaluates a CommonJS source with a require that records what it loads. */
function evaluate(source: string): { exports: Record<string, unknown>; loaded: string[] } {
  const loaded: string[] = [];
  const mod = { exports: {} as Record<string, unknown> };
  const req = (name: string) => {
    loaded.push(name);
    return require(name);
  };
  new Function('module', 'exports', 'require', source)(mod, mod.exports, req);
  return { exports: mod.exports, loaded };
}

describe('stand-ins', () => {
  it('node:http2: the constants without loading it, the rest from the real module on first use', () => {
    const { exports, loaded } = evaluate(standInSource('node:http2'));
    expect(exports.constants).toEqual(http2.constants);
    expect(loaded).toEqual([]);
    expect(exports.connect).toBe(http2.connect);
    expect(loaded).toEqual(['node:http2']);
  });

  it('node:assert: a passing assert(value) loads nothing, a failing one throws the real AssertionError', () => {
    const { exports, loaded } = evaluate(standInSource('node:assert'));
    const assert = exports as unknown as (value: unknown, message?: string) => void;
    assert(true);
    assert(1, 'fine');
    expect(loaded).toEqual([]);
    expect(() => assert(0, 'broken invariant')).toThrow(expect.objectContaining({ name: 'AssertionError', code: 'ERR_ASSERTION', message: 'broken invariant' }));
    expect(loaded).toEqual(['node:assert']);
  });

  it('node:child_process: loaded on the first property read', () => {
    const { exports, loaded } = evaluate(standInSource('node:child_process'));
    expect(loaded).toEqual([]);
    expect(exports.spawn).toBe(spawn);
    expect(loaded).toEqual(['node:child_process']);
  });
});

describe('packages left out of the bundle (conf\'s schema and migrations options)', () => {
  it('any member, called or constructed, throws naming the package; loading it loads nothing', () => {
    const { exports: semver, loaded } = evaluate(leftOutSource('semver'));
    expect(loaded).toEqual([]);
    expect(() => (semver.eq as (a: string, b: string) => boolean)('1.0.0', '1.0.0')).toThrow(/^semver is left out of backupctl's bundle/);
    const { exports: ajv } = evaluate(leftOutSource('ajv/dist/2020.js'));
    const Ajv = ajv.Ajv2020 as new () => unknown;
    expect(() => new Ajv()).toThrow(/^ajv\/dist\/2020\.js is left out of backupctl's bundle/);
    // What esbuild's interop reads when an ES module imports it.
    expect(ajv.__esModule).toBeUndefined();
  });
});

describe('undici patches', () => {
  const undiciRoot = path.join(ROOT, 'node_modules', 'undici');

  it('apply to the installed undici, each exactly once', () => {
    for (const [file, patches] of Object.entries(UNDICI_PATCHES as Record<string, [string, string][]>)) {
      const text = readFileSync(path.join(undiciRoot, file), 'utf8');
      const patched = patchSource(file, text, patches);
      expect(patched).not.toContain("require('node:http')\n");
      for (const [, to] of patches) expect(patched).toContain(to);
    }
  });

  it('refuse a source where a pattern is missing or repeated', () => {
    expect(() => patchSource('x.js', 'nothing here', [['const a = 1', 'const a = 2']])).toThrow(/expected one "const a = 1" in x.js, found 0/);
    expect(() => patchSource('x.js', 'const a = 1\nconst a = 1', [['const a = 1', 'const a = 2']])).toThrow(/found 2/);
  });
});
