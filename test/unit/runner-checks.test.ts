// The runner's declared checks (src/cli/checks.ts): what each refuses, and the words it uses.
import { describe, expect, it } from 'vitest';
import type { CommandSpec } from '../../src/contract/spec.js';
import { checkInput, transformValues } from '../../src/cli/checks.js';
import { UsageError } from '../../src/errors.js';

const spec = (checks: CommandSpec['checks'], params: CommandSpec['params'] = []): CommandSpec => ({
  path: ['things', 'update'],
  summary: '',
  examples: ['backupctl things update 1'],
  method: 'PATCH',
  endpoint: '/things/{id}',
  params: [{ name: 'id', in: 'path', type: 'integer', positional: true, required: true, description: '' }, ...params],
  output: { kind: 'none' },
  checks,
});
const refused = (f: () => void) => {
  try {
    f();
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return (err as UsageError).message;
  }
  throw new Error('not refused');
};

describe('checkInput', () => {
  const body = [
    { name: 'name', in: 'body', type: 'string', description: '' },
    { name: 'key', in: 'body', type: 'string', description: '' },
  ] as const;
  it('nothing to update: an empty body is refused, naming the body flags', () => {
    const s = spec({ nothingToUpdate: { what: 'thing {id}' } }, [...body]);
    expect(refused(() => checkInput(s, { id: 3 }, { method: 'PATCH', path: '/things/3' }))).toBe('nothing to update for thing 3');
    expect(() => checkInput(s, { id: 3, name: 'x' }, { method: 'PATCH', path: '/things/3', body: { name: 'x' } })).not.toThrow();
  });
  it('nothing to update with fields: a body without them changes nothing', () => {
    const s = spec({ nothingToUpdate: { what: 'thing {id}', fields: ['storage'] } });
    expect(refused(() => checkInput(s, { id: 1 }, { method: 'PATCH', path: '/things/1', body: { name: 'x' } }))).toContain('nothing to update');
  });
  it('at least one, at most one, exactly one', () => {
    const flags = [
      { name: 'a', in: 'local', type: 'boolean', description: '' },
      { name: 'b', in: 'local', type: 'string', description: '' },
    ] as const;
    expect(refused(() => checkInput(spec({ atLeastOne: { params: ['a', 'b'], message: 'give --a or --b for {id}' } }, [...flags]), { id: 2 }, undefined))).toBe('give --a or --b for 2');
    expect(refused(() => checkInput(spec({ atMostOne: ['a', 'b'] }, [...flags]), { a: true, b: 'x' }, undefined))).toBe('give one of --a or --b, not --a and --b');
    expect(refused(() => checkInput(spec({ exactlyOne: ['a', 'b'] }, [...flags]), {}, undefined))).toBe('give one of --a or --b');
    expect(() => checkInput(spec({ exactlyOne: ['a', 'b'] }, [...flags]), { b: 'x' }, undefined)).not.toThrow();
  });
  it('one id or --all: exactly one of them', () => {
    const s = spec({ orAll: { param: 'item', noun: 'item', owner: 'thing {id}' } }, [
      { name: 'item', in: 'local', type: 'integer', positional: true, description: '' },
      { name: 'all', in: 'local', type: 'boolean', description: '' },
    ]);
    expect(refused(() => checkInput(s, { id: 1, item: 4, all: true }, undefined))).toBe('give either <item> or --all, not both');
    expect(refused(() => checkInput(s, { id: 1 }, undefined))).toBe('missing argument <item>, or --all to delete every item of thing 1');
  });
  it('flag transforms: trim, and trim to one final newline', () => {
    const s = spec(undefined, [
      { name: 'secret', in: 'body', type: 'text-file', trim: true, description: '' },
      { name: 'pem', in: 'body', type: 'text-file', trim: 'line', description: '' },
    ]);
    const values: Record<string, unknown> = { secret: ' s3cret\n', pem: '-----BEGIN-----\n\n' };
    transformValues(s, values);
    expect(values).toEqual({ secret: 's3cret', pem: '-----BEGIN-----\n' });
  });
});
