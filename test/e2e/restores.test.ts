// restores list/get through the built CLI against one emulator: the request
// that went out, the bytes on stdout and the exit code.
import { beforeEach, describe, expect, it } from 'vitest';
import { apiFetch, withEmulatorCli } from '../helpers/emulator.js';
import { humanBytes } from '../../src/output/format.js';
import { parseStatedSize } from '../../src/util/stated-size.js';

interface Restore {
  id: string;
  job_id: string;
  backup_id: string;
  status: string;
  created_at: string;
  completed_at: string | null;
  files?: Array<{ name: string; size: string; url: string }>;
}

const { emu, cli, sent } = withEmulatorCli();

async function serviceRestores(query = ''): Promise<Restore[]> {
  const res = await apiFetch(emu, `/v1/restore-jobs?page_size=100${query}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: Restore[] }).data;
}
async function serviceRestore(id: string): Promise<Restore> {
  const res = await apiFetch(emu, `/v1/restore-jobs/${id}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: Restore }).data;
}

beforeEach(() => emu.clearRequests());

describe('restores list', () => {
  it('--status goes in the query; --json prints exactly data', async () => {
    const r = await cli(['restores', 'list', '--status', 'completed', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(sent()).toHaveLength(1);
    expect(sent()[0]).toMatchObject({ method: 'GET', path: '/v1/restore-jobs' });
    expect(sent()[0]!.query).toEqual({ status: 'completed' });
    const listed = JSON.parse(r.stdout) as Restore[];
    expect(listed).toEqual(await serviceRestores('&status=completed'));
    expect(listed.length).toBeGreaterThan(0);
    for (const x of listed) expect(x.status).toBe('completed');
  });

  it('tsv: id, job, backup, status, created, completed; -q the ids', async () => {
    const all = await serviceRestores();
    const tsv = await cli(['restores', 'list', '--page-size', '100', '-o', 'tsv']);
    expect(tsv.code, tsv.stderr).toBe(0);
    expect(sent()[0]!.query).toEqual({ page_size: '100' });
    expect(tsv.stdout).toBe(all.map((x) => [x.id, x.job_id, x.backup_id, x.status, x.created_at, x.completed_at ?? ''].join('\t') + '\n').join(''));
    const q = await cli(['restores', 'list', '--all', '-q']);
    expect(q.stdout).toBe(all.map((x) => `${x.id}\n`).join(''));
  });

  it('a status the service does not filter by exits 2 naming --status, nothing sent', async () => {
    const r = await cli(['restores', 'list', '--status', 'expired']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--status');
    expect(r.stderr).toContain('pending, running, failed, completed');
    expect(sent()).toHaveLength(0);
  });
});

describe('restores get', () => {
  it('--json prints exactly data, files included', async () => {
    const [first] = await serviceRestores('&status=completed');
    const r = await cli(['restores', 'get', first!.id, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(sent()).toHaveLength(1);
    expect(sent()[0]).toMatchObject({ method: 'GET', path: `/v1/restore-jobs/${first!.id}`, query: {} });
    const shown = JSON.parse(r.stdout) as Restore;
    expect(shown).toEqual(await serviceRestore(first!.id));
    expect(shown.files!.length).toBeGreaterThan(0);
  });

  it('table: the restore job, then a Files section with name, size and url', async () => {
    const [first] = await serviceRestores('&status=completed');
    const restore = await serviceRestore(first!.id);
    const r = await cli(['restores', 'get', restore.id, '-o', 'table']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^ID:\\s+${restore.id}$`, 'm'));
    expect(r.stdout).toMatch(new RegExp(`^Backup:\\s+${restore.backup_id}$`, 'm'));
    expect(r.stdout).toMatch(/^Status:\s+completed$/m);
    const files = r.stdout.slice(r.stdout.indexOf('\nFiles\n'));
    expect(files).toMatch(/Name\s+Size\s+URL/);
    for (const f of restore.files!) expect(files).toMatch(new RegExp(`${f.name.replace(/\./g, '\\.')}\\s+${humanBytes(parseStatedSize(f.size)!.bytes)}\\s+http://127\\.0\\.0\\.1:\\d+/`));
    // -q prints the id of the record
    const q = await cli(['restores', 'get', restore.id, '-q']);
    expect(q.stdout).toBe(`${restore.id}\n`);
  });

  it('an id that is not a UUID exits 2 and sends nothing; an unknown one exits 5', async () => {
    const bad = await cli(['restores', 'get', '17']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('UUID');
    expect(sent()).toHaveLength(0);
    const missing = await cli(['restores', 'get', '00000000-0000-4000-8000-000000000000']);
    expect(missing.code).toBe(5);
    expect(missing.stdout).toBe('');
  });
});
