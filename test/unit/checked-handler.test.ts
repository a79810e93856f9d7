// checkedHandler (src/cli/checked.ts): the runner runs a handler's check before any name is looked
// up and hands its answer on; called without that answer (a test calling the handler), the handler checks
// first itself. The user-level side is test/e2e/checks-before-lookup.test.ts.
import { describe, expect, it } from 'vitest';
import type { CommandInput, Context } from '../../src/contract/context.js';
import { checkedHandler } from '../../src/cli/checked.js';
import { UsageError } from '../../src/errors.js';

const input = (values: Record<string, unknown>) => ({ spec: { path: ['x'] }, values, request: undefined }) as unknown as CommandInput;
const ctx = {} as Context;

describe('checkedHandler', () => {
  it('exposes its check, and hands the answer the runner got from it to the run without checking again', async () => {
    const calls: string[] = [];
    const h = checkedHandler(
      async (i) => {
        calls.push('check');
        if (i.values.bad) throw new UsageError('bad');
        return { n: Number(i.values.n) * 2 };
      },
      async (_i, _c, checked) => {
        calls.push(`run ${checked.n}`);
        return { kind: 'empty' };
      },
    );
    expect(h.check).toBeTypeOf('function');
    const checked = await h.check!(input({ n: 4 }), ctx);
    expect(checked).toEqual({ n: 8 });
    await h(input({ n: 4 }), ctx, checked);
    expect(calls).toEqual(['check', 'run 8']);
    await expect(h.check!(input({ bad: true }), ctx)).rejects.toThrow(UsageError);
  });

  it('checks first itself when called without the answer, and never runs on input the check refuses', async () => {
    const calls: string[] = [];
    const h = checkedHandler(
      async (i) => {
        calls.push('check');
        if (i.values.bad) throw new UsageError('bad');
        return 'ok';
      },
      async (_i, _c, checked) => {
        calls.push(`run ${checked}`);
        return { kind: 'empty' };
      },
    );
    await h(input({}), ctx);
    expect(calls).toEqual(['check', 'run ok']);
    await expect(h(input({ bad: true }), ctx)).rejects.toThrow('bad');
    expect(calls).toEqual(['check', 'run ok', 'check']);
  });
});
