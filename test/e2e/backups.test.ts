// backups get/delete/urls (single backups by id) through the built CLI
// against one emulator: the request that went out, stdout bytes, exit codes.
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { apiFetch, withEmulatorCli } from '../helpers/emulator.js';
import { humanBytes } from '../../src/output/format.js';
import { parseStatedSize } from '../../src/util/stated-size.js';

interface Backup {
  id: string;
  job_id: string;
  status: string;
  created_at: string;
  completed_at: string | null;
  files: Array<{ name: string; size: string }>;
}

let completed: Backup[];
const { emu, cli, sent } = withEmulatorCli();
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

async function serviceBackup(id: string): Promise<{ status: number; backup?: Backup }> {
  const res = await apiFetch(emu, `/v1/backups/${id}`);
  return { status: res.status, backup: res.status === 200 ? ((await res.json()) as { data: Backup }).data : undefined };
}

beforeAll(async () => {
  const jobs = ((await (await apiFetch(emu, '/v1/jobs?page_size=100')).json()) as { data: Array<{ id: string }> }).data;
  completed = [];
  for (const j of jobs) {
    const res = await apiFetch(emu, `/v1/jobs/${j.id}/backups?status=completed&page_size=100`);
    completed.push(...((await res.json()) as { data: Backup[] }).data.filter((b) => b.files.length > 1));
  }
  expect(completed.length).toBeGreaterThan(3);
});
beforeEach(() => emu.clearRequests());

describe('backups get', () => {
  it('--json prints exactly data', async () => {
    const b = completed[0]!;
    const r = await cli(['backups', 'get', b.id, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(sent()).toHaveLength(1);
    expect(sent()[0]).toMatchObject({ method: 'GET', path: `/v1/backups/${b.id}`, query: {} });
    expect(JSON.parse(r.stdout)).toEqual((await serviceBackup(b.id)).backup);
  });

  it('table: the backup, then a Files section with name and size', async () => {
    const b = (await serviceBackup(completed[0]!.id)).backup!;
    const r = await cli(['backups', 'get', b.id, '-o', 'table']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^ID:\\s+${b.id}$`, 'm'));
    expect(r.stdout).toMatch(/^Status:\s+completed$/m);
    expect(r.stdout).toMatch(new RegExp(`^Files:\\s+${b.files.length}$`, 'm'));
    const files = r.stdout.slice(r.stdout.indexOf('\nFiles\n'));
    expect(files).toMatch(/Name\s+Size/);
    // The service's size text ('204 KB', '390 bytes') in the CLI's binary units (issue 16 §2.14).
    for (const f of b.files) expect(files).toMatch(new RegExp(`${escape(f.name)}\\s+${escape(humanBytes(parseStatedSize(f.size)!.bytes))}$`, 'm'));
    expect(files).not.toMatch(/ (bytes|KB|MB|GB)$/m);
  });

  it('tsv: one line with the backup columns', async () => {
    const b = (await serviceBackup(completed[0]!.id)).backup!;
    const r = await cli(['backups', 'get', b.id, '-o', 'tsv']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.startsWith(`${b.id}\tcompleted\t`)).toBe(true);
    expect(r.stdout.endsWith(`\t${b.files.length}\n`)).toBe(true);
  });

  it('an id that is not a UUID exits 2 naming <id>, nothing sent; an unknown one exits 5', async () => {
    const bad = await cli(['backups', 'get', '12']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('<id>');
    expect(sent()).toHaveLength(0);
    const missing = await cli(['backups', 'get', '00000000-0000-4000-8000-000000000000']);
    expect(missing.code).toBe(5);
    expect(missing.stdout).toBe('');
  });
});

describe('backups urls', () => {
  const urlOf = (id: string, name: string) => new RegExp(`^http://127\\.0\\.0\\.1:\\d+/files/${id}/${escape(name)}\\?\\S+$`);

  it('POST .../download; tsv prints name<TAB>url per file', async () => {
    const b = completed[1]!;
    const r = await cli(['backups', 'urls', b.id, '-o', 'tsv']);
    expect(r.code, r.stderr).toBe(0);
    expect(sent()).toHaveLength(1);
    expect(sent()[0]).toMatchObject({ method: 'POST', path: `/v1/backups/${b.id}/download`, query: {} });
    const lines = r.stdout.split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.map((l) => l.split('\t')[0]).sort()).toEqual(b.files.map((f) => f.name).sort());
    for (const line of lines) {
      const [name, url, ...rest] = line.split('\t');
      expect(rest).toEqual([]);
      expect(url).toMatch(urlOf(b.id, name!));
    }
  });

  it('table mode prints the same name<TAB>url lines, whole (no header, nothing cut)', async () => {
    const b = completed[1]!;
    const r = await cli(['backups', 'urls', b.id, '-o', 'table']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split('\n').filter(Boolean);
    expect(lines).toHaveLength(b.files.length);
    for (const line of lines) {
      const [name, url] = line.split('\t');
      expect(url).toMatch(urlOf(b.id, name!));
    }
  });

  it('--json prints exactly data: {file name: url}; -q prints the urls alone', async () => {
    const b = completed[1]!;
    const r = await cli(['backups', 'urls', b.id, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const data = JSON.parse(r.stdout) as Record<string, string>;
    expect(Object.keys(data).sort()).toEqual(b.files.map((f) => f.name).sort());
    for (const [name, url] of Object.entries(data)) expect(url).toMatch(urlOf(b.id, name));
    const q = await cli(['backups', 'urls', b.id, '-q']);
    const urls = q.stdout.split('\n').filter(Boolean);
    expect(urls).toHaveLength(b.files.length);
    for (const u of urls) expect(u).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/files\//);
  });

  it('the signed URLs fetch the files without the token', async () => {
    const b = completed[1]!;
    const data = JSON.parse((await cli(['backups', 'urls', b.id, '--json'])).stdout) as Record<string, string>;
    const res = await fetch(Object.values(data)[0]!);
    expect(res.status).toBe(200);
    await res.arrayBuffer();
  });

  it('an id that is not a UUID exits 2, nothing sent', async () => {
    const r = await cli(['backups', 'urls', 'latest']);
    expect(r.code).toBe(2);
    expect(sent()).toHaveLength(0);
  });
});

describe('backups delete', () => {
  it('asks without --yes (exit 2, nothing sent); --yes sends DELETE and confirms on stderr', async () => {
    const b = completed[2]!;
    const asked = await cli(['backups', 'delete', b.id]);
    expect(asked.code).toBe(2);
    expect(asked.stderr).toContain('--yes');
    expect(sent()).toHaveLength(0);
    const r = await cli(['backups', 'delete', b.id, '--yes']);
    expect(r.code, r.stderr).toBe(0);
    expect(sent()).toHaveLength(1);
    expect(sent()[0]).toMatchObject({ method: 'DELETE', path: `/v1/backups/${b.id}`, body: undefined });
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`Deleted backup ${b.id}.\n`);
    expect((await serviceBackup(b.id)).status).toBe(404);
    expect((await cli(['backups', 'get', b.id])).code).toBe(5);
  });

  it('-q prints the id deleted', async () => {
    const b = completed[3]!;
    const r = await cli(['backups', 'delete', b.id, '--yes', '-q']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${b.id}\n`);
  });
});
