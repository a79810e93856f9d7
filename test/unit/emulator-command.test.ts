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
    expect(spec.params.map((p) => p.flag ?? p.name)).toEqual(['port', 'token', 'seed', 'latency', 'fault', 'outcome', 'big-job', 'damaged_files', 'bad_night', 'archive_faults', 'retention_jobs', 'fleet_jobs', 'changing_files', 'url_ttl', 'big_file', 'dialect', 'tick', 'now']);
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

  it('--now starts its clock at that instant: the demo history is laid back from it, and new records carry it', async () => {
    // 01:30 UTC on the night European clocks go forward; git server runs daily at 00:15 Europe/Paris (23:15 UTC in winter).
    const { ctx, result, stop } = run({ port: 0, token: 'emu_now', seed: 'demo', latency: 0, tick: 5, now: '2027-03-28T01:30:00.000Z' });
    const url = (await lines(ctx))[0]!.slice('BACKUPCTL_BASE_URL='.length);
    const headers = { Authorization: 'Bearer emu_now', 'Content-Type': 'application/json' };
    const jobs = (await (await fetch(`${url}/v1/jobs?page_size=100`, { headers })).json()) as { data: Array<{ id: string; name: string }> };
    const git = jobs.data.find((j) => j.name === 'git server')!;
    const backups = async () =>
      ((await (await fetch(`${url}/v1/jobs/${git.id}/backups?sort=-created_at&page_size=15`, { headers })).json()) as { data: Array<{ created_at: string }> }).data;
    const newest = Date.parse((await backups())[0]!.created_at);
    expect(newest - Date.parse('2027-03-27T23:15:00Z')).toBeGreaterThanOrEqual(0);
    expect(newest - Date.parse('2027-03-27T23:15:00Z')).toBeLessThanOrEqual(90_000);
    const started = await fetch(`${url}/v1/jobs/${git.id}/backups/start`, { method: 'POST', headers, body: '{}' });
    expect(started.status).toBeLessThan(300);
    const created = Date.parse((await backups())[0]!.created_at);
    expect(created - Date.parse('2027-03-28T01:30:00Z')).toBeGreaterThanOrEqual(0);
    expect(created - Date.parse('2027-03-28T01:30:00Z')).toBeLessThan(60_000);
    stop();
    await result;
  });

  it('refuses a bad --fault before starting anything', async () => {
    const { ctx, result } = run({ fault: ['teapot'] });
    await expect(result).rejects.toBeInstanceOf(UsageError);
    expect(ctx.stdoutText()).toBe('');
  });
});
