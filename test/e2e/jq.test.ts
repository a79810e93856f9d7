// --jq <expr> (issue 13, part 5): the JSON output of any command, through jq,
// printed as `jq -r` prints it. The built CLI against the emulator.
import { beforeEach, describe, expect, it } from 'vitest';
import { apiFetch, withEmulatorCli } from '../helpers/emulator.js';

const { emu, cli, sent } = withEmulatorCli();
beforeEach(() => emu.clearRequests());

async function serviceList<T>(path: string): Promise<T[]> {
  return ((await (await apiFetch(emu, `/v1${path}?page_size=100`)).json()) as { data: T[] }).data;
}

describe('--jq', () => {
  it('jobs list --jq ".[].name" prints the names, one per line, raw', async () => {
    const jobs = await serviceList<{ name: string }>('/jobs');
    const r = await cli(['jobs', 'list', '--jq', '.[].name']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(jobs.slice(0, 15).map((j) => `${j.name}\n`).join(''));
  });

  it('prints other values as jq does (indented JSON), numbers and null as JSON', async () => {
    const r = await cli(['jobs', 'get', 'shop mysql', '--jq', '{name, n: (.storage | length), none: .nothing}']);
    expect(r.code, r.stderr).toBe(0);
    const shop = (await serviceList<{ name: string; storage: unknown[] }>('/jobs')).find((j) => j.name === 'shop mysql')!;
    expect(r.stdout).toBe(`{\n  "name": "shop mysql",\n  "n": ${shop.storage.length},\n  "none": null\n}\n`);
    const many = await cli(['servers', 'list', '--all', '--jq', 'length']);
    expect(many.stdout).toBe('20\n');
    const empty = await cli(['servers', 'list', '--jq', '.[] | select(.name == "nope")']);
    expect(empty).toMatchObject({ code: 0, stdout: '', stderr: '' });
  });

  it('works on answers without data, status and api', async () => {
    const status = await cli(['status', '--jq', '.summary | keys | join(",")']);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toBe('failing,healthy,stale,unknown\n');
    const api = await cli(['api', '/ssh-keys', '-X', 'GET', '--jq', '.data[0].id']);
    expect(api.stdout).toBe('1\n');
  });

  it('a bad expression exits 2 with jq\'s message, and nothing is sent', async () => {
    const r = await cli(['jobs', 'list', '--jq', '.[']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('error: --jq: syntax error, unexpected end of file at <top-level>, line 1, column 2:\n      .[\n       ^\n');
    expect(sent()).toEqual([]);
    const unknown = await cli(['jobs', 'list', '--jq', 'nosuchfunction']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('nosuchfunction/0 is not defined');
  });

  it('an error while filtering exits 2 after what jq printed; a command without JSON is refused before sending', async () => {
    const r = await cli(['servers', 'list', '--jq', '.[0].name, error("stop")']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('web-01\n');
    expect(r.stderr).toContain('stop');
    emu.clearRequests();
    const none = await cli(['ssh-keys', 'delete', '1', '--yes', '--jq', '.']);
    expect(none.code).toBe(2);
    expect(none.stderr).toBe('error: --jq: ssh-keys delete prints no JSON\n');
    expect(sent()).toEqual([]);
  });
});
