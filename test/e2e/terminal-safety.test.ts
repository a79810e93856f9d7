// Issue 23 §4: service text through --jq is made safe on a terminal (finding
// 15), and a backup's bytes are not written into a terminal (finding 16).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { apiFetch, fileRequests, requestsTo, startTestEmulator } from '../helpers/emulator.js';
import { inPty } from '../helpers/pty.js';
import type { Emulator } from '../../src/emulator/index.js';

let emu: Emulator;
let cfg: { dir: string; cleanup: () => void };
let hostileId: string;
const ESC = '\u001b';
const HOSTILE = `evil${ESC}]52;c;ZWNobyBwd25lZA==\u0007${ESC}[2Jname`;

beforeAll(async () => {
  emu = await startTestEmulator();
  cfg = tempConfigDir();
  const res = await apiFetch(emu, '/v1/jobs', {
    method: 'POST',
    json: { name: HOSTILE, recipe_id: 1, config: {}, compute: { type: 'ss_agent' }, storage: [{ storage_id: 1, priority: 1 }], schedules: [{ order: 1, cron: '0 1 * * *', timezone: 'UTC' }] },
  });
  expect(res.status).toBe(201);
  hostileId = ((await res.json()) as { data: { id: string } }).data.id;
});
afterAll(async () => {
  await emu.close();
  cfg.cleanup();
});
const env = () => ({ BACKUPCTL_BASE_URL: emu.url, BACKUPCTL_TOKEN: emu.token, BACKUPCTL_CONFIG_DIR: cfg.dir });

describe('15. --jq on a terminal', () => {
  it('removes escape sequences from what jq prints on a terminal', async () => {
    const r = await inPty(['jobs', 'get', hostileId, '--jq', '.name'], env());
    expect(r.code).toBe(0);
    expect(r.output).toContain('evilname');
    expect(r.output).not.toContain(ESC);
    expect(r.output).not.toContain('\u0007');
  });

  it('keeps jq -r\'s raw text for a pipe (a script gets the bytes the service sent)', async () => {
    const r = await runCli(['jobs', 'get', hostileId, '--jq', '.name'], { env: env() });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${HOSTILE}\n`);
  });
});

describe('16. jobs backup download --output - and a terminal', () => {
  it('refuses to write a backup into a terminal, before anything is sent', async () => {
    emu.clearRequests();
    const r = await inPty(['jobs', 'backup', 'download', 'shop mysql', '--latest', '--output', '-'], env());
    expect(r.code).toBe(2);
    expect(r.output).toContain('binary output can mess up your terminal');
    expect(r.output).toContain('--force');
    expect(requestsTo(emu, '/v1/backups')).toEqual([]);
    expect(fileRequests(emu)).toEqual([]);
  });

  it('writes into a pipe from a terminal, and into the terminal with --force', async () => {
    const piped = await inPty(['jobs', 'backup', 'download', 'shop mysql', '--latest', '--output', '-'], env(), { pipe: 'wc -c' });
    expect(piped.code).toBe(0);
    expect(Number(/^\s*(\d+)\s*$/m.exec(piped.output)?.[1])).toBeGreaterThan(0);
    emu.clearRequests();
    const forced = await inPty(['jobs', 'backup', 'download', 'shop mysql', '--latest', '--output', '-', '--force'], env());
    expect(forced.code).toBe(0);
    expect(fileRequests(emu).length).toBeGreaterThan(0);
  });
});
