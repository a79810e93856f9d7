// `backupctl emulator` as its handler runs: the lines for the shell on
// stdout, a served API with that token, and a clean stop on interrupt.
import { describe, expect, it } from 'vitest';
import { handlers, module } from '../../src/commands/emulator.js';
import { UsageError } from '../../src/errors.js';
import { fakeContext } from './config-helpers.js';

const spec = module.commands[0]!;

function run(values: Record<string, unknown>) {
  const controller = new AbortController();
  const ctx = { ...fakeContext({ configDir: '/nonexistent' }), signal: controller.signal };
  const result = handlers.emulator({ spec, values, request: undefined }, ctx);
  return { ctx, result, stop: () => controller.abort() };
}

async function lines(ctx: ReturnType<typeof run>['ctx']): Promise<string[]> {
  for (let i = 0; i < 300 && !ctx.stdoutText().includes('BACKUPCTL_TOKEN='); i++) await new Promise((r) => setTimeout(r, 10));
  return ctx.stdoutText().trimEnd().split('\n');
}

describe('emulator command', () => {
  it('is a local command with the documented flags and no output of its own kind', () => {
    expect(spec).toMatchObject({ path: ['emulator'], local: true, handler: 'emulator', output: { kind: 'none' } });
    expect(spec.params.map((p) => p.flag ?? p.name)).toEqual(['port', 'token', 'seed', 'latency', 'fault', 'outcome', 'big-job', 'tick']);
    expect(spec.params.every((p) => p.in === 'local')).toBe(true);
  });

  it('prints BACKUPCTL_BASE_URL and BACKUPCTL_TOKEN, serves with that token, and stops on interrupt', async () => {
    const { ctx, result, stop } = run({ port: 0, token: 'emu_cmdtest', seed: 'empty', latency: 0, fault: ['500:count=1:path=/v1/storage'] });
    const out = await lines(ctx);
    expect(out).toHaveLength(2);
    expect(out[0]).toMatch(/^BACKUPCTL_BASE_URL=http:\/\/127\.0\.0\.1:\d+$/);
    expect(out[1]).toBe('BACKUPCTL_TOKEN=emu_cmdtest');
    expect(ctx.stderrText()).toMatch(/^Emulator running; Ctrl-C to stop\. Files served on http:\/\/127\.0\.0\.1:\d+\.\n$/);
    const url = out[0]!.slice('BACKUPCTL_BASE_URL='.length);
    const headers = { Authorization: 'Bearer emu_cmdtest' };
    expect((await fetch(`${url}/v1/storage`, { headers })).status).toBe(500);
    const keys = (await (await fetch(`${url}/v1/ssh-keys`, { headers })).json()) as { data: unknown[] };
    expect(keys.data).toHaveLength(1);
    stop();
    await expect(result).resolves.toEqual({ kind: 'empty' });
    await expect(fetch(`${url}/__emulator/health`)).rejects.toThrow();
  });

  it('refuses a bad --fault before starting anything', async () => {
    const { ctx, result } = run({ fault: ['teapot'] });
    await expect(result).rejects.toBeInstanceOf(UsageError);
    expect(ctx.stdoutText()).toBe('');
  });
});
