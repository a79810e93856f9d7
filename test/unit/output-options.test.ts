import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { Globals, IO } from '../../src/contract/context.js';
import { UsageError } from '../../src/errors.js';
import { resolveOutputOptions } from '../../src/output/index.js';

function io(tty: boolean): IO {
  return {
    stdout: new PassThrough(),
    stderr: new PassThrough(),
    stdin: new PassThrough(),
    stdoutIsTTY: tty,
    stderrIsTTY: tty,
    stdinIsTTY: tty,
    columns: 80,
  };
}

const resolve = (globals: Globals, env: NodeJS.ProcessEnv = {}, tty = true, profileOutput?: string) =>
  resolveOutputOptions({ globals, env, io: io(tty), ...(profileOutput !== undefined ? { profileOutput } : {}) });

describe('resolveOutputOptions: format', () => {
  it('defaults to table on a terminal and tsv in a pipe', () => {
    expect(resolve({}, {}, true).format).toBe('table');
    expect(resolve({}, {}, false).format).toBe('tsv');
  });

  it('applies --json > --output > BACKUPCTL_OUTPUT > profile', () => {
    const env = { BACKUPCTL_OUTPUT: 'ndjson' };
    expect(resolve({ json: true, output: 'tsv' }, env, true, 'table').format).toBe('json');
    expect(resolve({ output: 'tsv' }, env, true, 'table').format).toBe('tsv');
    expect(resolve({}, env, true, 'json').format).toBe('ndjson');
    expect(resolve({}, {}, true, 'json').format).toBe('json');
  });

  it('names the source of an unknown format and the allowed values', () => {
    expect(() => resolve({ output: 'xml' })).toThrow(UsageError);
    expect(() => resolve({ output: 'xml' })).toThrow(/--output.*table, json, ndjson, tsv/);
    expect(() => resolve({}, { BACKUPCTL_OUTPUT: 'yaml' })).toThrow(/BACKUPCTL_OUTPUT.*table, json, ndjson, tsv/);
    expect(() => resolve({}, {}, true, 'csv')).toThrow(/profile.*table, json, ndjson, tsv/);
  });
});

describe('resolveOutputOptions: colour', () => {
  it('is on at a terminal and never off one, even with FORCE_COLOR', () => {
    expect(resolve({}, {}, true).color).toBe(true);
    expect(resolve({}, {}, false).color).toBe(false);
    expect(resolve({}, { FORCE_COLOR: '1' }, false).color).toBe(false);
    expect(resolve({}, { FORCE_COLOR: '3' }, true).color).toBe(true);
  });

  it('honours --no-color, NO_COLOR and FORCE_COLOR=0', () => {
    expect(resolve({ color: false }, {}, true).color).toBe(false);
    expect(resolve({}, { NO_COLOR: '1' }, true).color).toBe(false);
    expect(resolve({}, { NO_COLOR: '' }, true).color).toBe(true);
    expect(resolve({}, { FORCE_COLOR: '0' }, true).color).toBe(false);
  });
});

describe('resolveOutputOptions: the rest', () => {
  it('reads quiet, columns, headers and pretty', () => {
    const out = resolve({ quiet: true, columns: ' id, ,name ', headers: false }, {}, true);
    expect(out).toMatchObject({ quiet: true, columns: ['id', 'name'], noHeaders: true, pretty: true });
    expect(resolve({}, {}, false)).toMatchObject({ quiet: false, noHeaders: false, pretty: false });
    expect(resolve({}).columns).toBeUndefined();
  });
});
