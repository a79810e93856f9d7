// The emulator's API as a client meets it: envelopes, errors, filters,
// sorting and the state changes each endpoint makes.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { emulatorRoutes, startEmulator } from '../../src/emulator/index.js';
import { ROOT } from '../helpers/cli.js';
import { apiFetch, requestsTo, startTestEmulator, withEmulator } from '../helpers/emulator.js';

type Json = any;

/** Polls `check` until it holds; bounded, never a timing assertion. */
async function eventually<T>(check: () => Promise<T | undefined>, tries = 200): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const value = await check();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('condition never held');
}

describe('emulator API', () => {
  const emu = withEmulator();
  const get = async (p: string): Promise<{ status: number; body: Json }> => {
    const res = await apiFetch(emu, p);
    return { status: res.status, body: await res.json() };
  };
  const send = async (method: string, p: string, json?: unknown): Promise<{ status: number; body: Json; text: string }> => {
    const res = await apiFetch(emu, p, { method, json });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined, text };
  };

  describe('pagination', () => {
    it('answers lists with data, links and Laravel meta, 15 per page by default', async () => {
      const { status, body } = await get('/v1/servers');
      expect(status).toBe(200);
      expect(body.data).toHaveLength(15);
      expect(body.links).toEqual({
        first: `${emu.url}/v1/servers?page=1`,
        last: `${emu.url}/v1/servers?page=2`,
        prev: null,
        next: `${emu.url}/v1/servers?page=2`,
      });
      expect(body.meta).toMatchObject({ current_page: 1, from: 1, to: 15, last_page: 2, per_page: 15, total: 20, path: `${emu.url}/v1/servers` });
      expect(body.meta.links.map((l: Json) => l.label)).toEqual(['&laquo; Previous', '1', '2', 'Next &raquo;']);
      expect(body.meta.links[1].active).toBe(true);
    });

    it('drops filters and page_size from links.next, as the real service does', async () => {
      const { body } = await get('/v1/snapshots?page_size=15&status=completed&sort=-id');
      expect(body.meta.total).toBeGreaterThan(15);
      expect(body.links.next).toBe(`${emu.url}/v1/snapshots?page=2`);
    });

    it('serves the last page partly filled and a page past the end empty with null from/to', async () => {
      const second = await get('/v1/servers?page=2');
      expect(second.body.data).toHaveLength(5);
      expect(second.body.meta).toMatchObject({ from: 16, to: 20, current_page: 2 });
      expect(second.body.links.next).toBeNull();
      const past = await get('/v1/servers?page=9');
      expect(past.body.data).toEqual([]);
      expect(past.body.meta).toMatchObject({ from: null, to: null, total: 20 });
    });

    it('refuses page_size outside 15..100 with a 422 naming page_size', async () => {
      for (const size of ['14', '101', 'ten']) {
        const { status, body } = await get(`/v1/servers?page_size=${size}`);
        expect(status).toBe(422);
        expect(Object.keys(body.errors)).toEqual(['page_size']);
      }
      expect((await get('/v1/servers?page_size=100')).body.data).toHaveLength(20);
    });
  });

  describe('errors', () => {
    it('answers 401 Unauthenticated without or with a wrong token', async () => {
      for (const headers of [{}, { Authorization: 'Bearer wrong' }, { Authorization: emu.token }] as Record<string, string>[]) {
        const res = await fetch(`${emu.url}/v1/servers`, { headers });
        expect(res.status).toBe(401);
        expect(await res.json()).toEqual({ message: 'Unauthenticated.' });
      }
    });

    it('answers 404 for an unknown route and for an unknown id, naming the model', async () => {
      const route = await get('/v1/nothing-here');
      expect(route.status).toBe(404);
      expect(typeof route.body.message).toBe('string');
      const server = await send('DELETE', '/v1/ssh-keys/999');
      expect(server.status).toBe(404);
      expect(server.body).toEqual({ message: 'No query results for model [App\\Models\\SshKey] 999.' });
      expect((await get('/v1/jobs/not-a-job')).body.message).toContain('[App\\Models\\BackupJob] not-a-job');
    });

    it('answers 405 with Allow for a wrong method', async () => {
      const res = await apiFetch(emu, '/v1/servers/code', { method: 'DELETE' });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toContain('GET');
      expect(((await res.json()) as Json).message).toContain('DELETE method is not supported');
    });

    it('answers 422 with the first message, the count of others, and every field', async () => {
      const { status, body } = await send('POST', '/v1/servers', { name: 'x' });
      expect(status).toBe(422);
      expect(body.message).toBe('The ssh host field is required. (and 3 more errors)');
      expect(body.errors).toEqual({
        ssh_host: ['The ssh host field is required.'],
        ssh_port: ['The ssh port field is required.'],
        ssh_user: ['The ssh user field is required.'],
        ssh_key: ['The ssh key field is required.'],
      });
    });

    it('wants ssh_port as a string and ssh_key as an existing key', async () => {
      const { body } = await send('POST', '/v1/servers', { name: 'x', ssh_host: 'h', ssh_port: 22, ssh_user: 'root', ssh_key: 77 });
      expect(body.errors).toEqual({
        ssh_port: ['The ssh port field must be a string.'],
        ssh_key: ['The selected ssh key is invalid.'],
      });
    });

    it('requires the credential keys of the chosen provider', async () => {
      const { status, body } = await send('POST', '/v1/snapshots/accounts', { name: 'a', provider: 'cloud_f', credentials: { key: 'k' } });
      expect(status).toBe(422);
      expect(Object.keys(body.errors).sort()).toEqual(['credentials.password', 'credentials.username']);
      const ok = await send('POST', '/v1/snapshots/accounts', { name: 'a', provider: 'cloud_e', credentials: { key: 'k', zone: 'z' } });
      expect(ok.status).toBe(201);
      expect(ok.body.data.created_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    });

    it('requires endpoint for custom storage and region for the others', async () => {
      const custom = await send('POST', '/v1/storage', { name: 's', provider: 'custom', key: 'k', secret: 's', bucket: 'b' });
      expect(Object.keys(custom.body.errors)).toEqual(['endpoint']);
      const other = await send('POST', '/v1/storage', { name: 's', provider: 'cloud_a', key: 'k', secret: 's', bucket: 'b' });
      expect(Object.keys(other.body.errors)).toEqual(['region']);
    });

    it('refuses bodies that are not JSON', async () => {
      const res = await fetch(`${emu.url}/v1/ssh-keys`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${emu.token}`, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: 'name=x',
      });
      expect(res.status).toBe(415);
    });
  });

  describe('filters and sorting', () => {
    it('filters by similar name, case-insensitively', async () => {
      const { body } = await get('/v1/servers?name=WEB');
      expect(body.data.map((s: Json) => s.name)).toEqual(['web-01', 'web-02', 'web-03', 'web-04', 'staging-web']);
    });

    it('sorts ascending and descending on documented fields, and refuses others', async () => {
      const asc = await get('/v1/servers?sort=name&page_size=100');
      const names = asc.body.data.map((s: Json) => s.name);
      expect(names).toEqual([...names].sort((a: string, b: string) => a.localeCompare(b)));
      const desc = await get('/v1/servers?sort=-name&page_size=100');
      expect(desc.body.data.map((s: Json) => s.name)).toEqual([...names].reverse());
      const bad = await get('/v1/servers?sort=password');
      expect(bad.status).toBe(422);
      expect(Object.keys(bad.body.errors)).toEqual(['sort']);
    });

    it('filters snapshots by bracket tags, 1 set and 0 unset, true/false too', async () => {
      // Every page of both: the demo's history spans more than one.
      const pages = async (query: string) => {
        const out: Json[] = [];
        for (let page = 1; ; page++) {
          const { body } = await get(`/v1/snapshots?page_size=100&page=${page}${query}`);
          out.push(...(body.data as Json[]));
          if (page >= body.meta.last_page) return out;
        }
      };
      const all = await pages('');
      const daily = await pages('&tags[daily]=1&tags[weekly]=0');
      expect(daily.length).toBeGreaterThan(0);
      expect(daily.map((s) => s.id)).toEqual(all.filter((s) => s.tags.daily === 1 && s.tags.weekly === 0).map((s) => s.id));
      for (const s of daily) expect(s.tags).toMatchObject({ daily: 1, weekly: 0 });
      const same = await pages('&tags[daily]=true&tags[weekly]=false');
      expect(same.map((s) => s.id)).toEqual(daily.map((s) => s.id));
      expect((await get('/v1/snapshots?tags[daily]=maybe')).status).toBe(422);
      const recorded = requestsTo(emu, '/v1/snapshots').at(-1)!;
      expect(recorded.query['tags[daily]']).toBe('maybe');
    });

    it('filters by status and by a since datetime, refusing a bad one', async () => {
      const failed = (await get('/v1/snapshots?status=failed&page_size=100')).body.data as Json[];
      expect(failed.length).toBeGreaterThan(0);
      for (const s of failed) expect(s).toMatchObject({ status: 'failed', fail_reason: expect.any(String) });
      const since = new Date(Date.now() - 2 * 86_400_000).toISOString();
      const recent = (await get(`/v1/snapshots?started_since=${since}&page_size=100`)).body.data as Json[];
      for (const s of recent) expect(Date.parse(s.started_at)).toBeGreaterThanOrEqual(Date.parse(since) - 1000);
      const bad = await get('/v1/snapshots?started_since=yesterday');
      expect(bad.status).toBe(422);
      expect(Object.keys(bad.body.errors)).toEqual(['started_since']);
      expect((await get('/v1/snapshots?status=nope')).status).toBe(422);
    });

    it('filters jobs by the host of their server', async () => {
      const jobs = (await get('/v1/jobs')).body.data as Json[];
      const withServer = jobs.find((j) => j.compute.type === 'server')!;
      const { body } = await get(`/v1/jobs?host=${withServer.compute.server.host}`);
      expect(body.data.map((j: Json) => j.id)).toContain(withServer.id);
      for (const j of body.data) expect(j.compute.server.host).toBe(withServer.compute.server.host);
    });
  });

  describe('shapes', () => {
    it('sends the documented value shapes', async () => {
      const snapshot = (await get('/v1/snapshots?status=completed')).body.data[0];
      expect(snapshot.size).toMatch(/^\d+(\.\d+)? (bytes|KB|MB|GB)$/);
      expect(snapshot.started_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.000000Z$/);
      expect(Object.values(snapshot.tags).every((v) => v === 0 || v === 1)).toBe(true);
      expect(snapshot.credentials.created_at).toMatch(/T.*Z$/);
      const account = (await get('/v1/snapshots/accounts')).body.data[0];
      expect(account.created_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
      expect(account.provider).toEqual({ name: expect.any(String), pretty_name: expect.any(String) });
      const droplet = (await get('/v1/cloud_i/droplets')).body.data[0];
      expect(droplet.estimated_cost).toMatch(/^\$\d+\.\d{2}\/month$/);
      const withSnapshots = (await get(`/v1/cloud_i/droplets/${droplet.id}`)).body.data;
      expect(Number.isInteger(withSnapshots.snapshots[0].size)).toBe(true);
      const volume = (await get('/v1/cloud_i/volumes')).body.data[0];
      expect(volume.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(volume).not.toHaveProperty('host');
    });

    it('shows jobs with config objects, schedules, storage and last backups with integer tags', async () => {
      const job = (await get('/v1/jobs')).body.data[0];
      expect(job.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4/);
      for (const entry of Object.values(job.config) as Json[]) expect(Object.keys(entry).sort()).toEqual(['label', 'type', 'value']);
      expect(job.schedule[0]).toMatchObject({ cron: '0 2 * * *', timezone: 'Europe/Paris', resource_type: 'BackupJob', resource_id: job.id });
      expect(job.storage[0]).not.toHaveProperty('priority');
      expect(job.last_backups.length).toBeGreaterThan(0);
      expect(Object.values(job.last_backups[0].tags).every((v) => v === 0 || v === 1)).toBe(true);
      const backups = (await get(`/v1/jobs/${job.id}/backups?sort=-created_at`)).body.data as Json[];
      expect(Object.values(backups[0].tags).every((v) => typeof v === 'boolean')).toBe(true);
      expect(backups[0].files[0].size).toMatch(/^\d+(\.\d+)? (bytes|KB)$/);
      expect(backups[0].files[0].url.startsWith(`${emu.filesUrl}/files/`)).toBe(true);
    });

    it('seeds a failing job and a stale one among healthy ones', async () => {
      const jobs = (await get('/v1/jobs')).body.data as Json[];
      const newest = async (job: Json) => (await get(`/v1/jobs/${job.id}/backups?sort=-created_at`)).body.data as Json[];
      const failing = jobs.find((j) => j.name.includes('fail'))!;
      expect((await newest(failing))[0].status).toBe('failed');
      const ages = await Promise.all(
        jobs.map(async (j) => {
          const done = (await newest(j)).find((b) => b.status === 'completed');
          return done ? Date.now() - Date.parse(done.completed_at) : Infinity;
        }),
      );
      expect(ages.filter((a) => a > 3 * 86_400_000).length).toBeGreaterThanOrEqual(1);
      expect(ages.filter((a) => a < 2 * 86_400_000).length).toBeGreaterThanOrEqual(5);
      expect(new Set(jobs.map((j) => j.compute.type))).toEqual(new Set(['server', 'ss_serverless', 'ss_agent']));
    });
  });

  describe('state', () => {
    it('POST /v1/servers answers 200 and the server shows in later lists', async () => {
      const created = await send('POST', '/v1/servers', { name: 'new-box', ssh_host: '192.0.2.50', ssh_port: '2200', ssh_user: 'root', ssh_key: 1 });
      expect(created.status).toBe(200);
      expect(created.body.data).toMatchObject({ name: 'new-box', host: '192.0.2.50', port: 2200, user: 'root', key: { id: 1 } });
      const found = (await get('/v1/servers?name=new-box')).body.data;
      expect(found.map((s: Json) => s.id)).toEqual([created.body.data.id]);
    });

    it('creates, renames and deletes SSH keys', async () => {
      const created = await send('POST', '/v1/ssh-keys', {});
      expect(created.status).toBe(201);
      const key = created.body.data;
      expect(key.public_key).toMatch(/^ssh-rsa AAAAB3NzaC1yc2E\S+ \S+$/);
      expect(key.name).toMatch(/\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}/);
      const renamed = await send('PATCH', `/v1/ssh-keys/${key.id}/rename`, { name: 'renamed' });
      expect(renamed.status).toBe(204);
      expect(renamed.text).toBe('');
      expect((await get('/v1/ssh-keys?page_size=100')).body.data.find((k: Json) => k.id === key.id).name).toBe('renamed');
      expect((await send('DELETE', `/v1/ssh-keys/${key.id}`)).status).toBe(204);
      expect((await get('/v1/ssh-keys?page_size=100')).body.data.some((k: Json) => k.id === key.id)).toBe(false);
    });

    it('starts a backup: 202 without data, then pending, running, completed with files', async () => {
      const job = (await get('/v1/jobs')).body.data.find((j: Json) => j.name === 'git server');
      const started = await send('POST', `/v1/jobs/${job.id}/backups/start`, { is_manual: true });
      expect(started.status).toBe(202);
      expect(started.body).toMatchObject({
        status: 'starting',
        backup_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        url: expect.any(String),
        config: [],
        tags: { is_manual: true, is_hourly: false, is_daily: false, is_weekly: false, is_monthly: false },
      });
      expect(started.body).not.toHaveProperty('data');
      const first = (await get(`/v1/jobs/${job.id}/backups?sort=-created_at`)).body.data[0];
      expect(first.id).toBe(started.body.backup_id);
      expect(['pending', 'running', 'completed']).toContain(first.status);
      const seen = new Set<string>([first.status]);
      const done = await eventually(async () => {
        const b = (await get(`/v1/backups/${started.body.backup_id}`)).body.data;
        seen.add(b.status);
        return b.status === 'completed' ? b : undefined;
      });
      expect(done.files.length).toBeGreaterThan(0);
      expect(done.tags.manual).toBe(true);
      expect([...seen].every((s) => ['pending', 'running', 'completed'].includes(s))).toBe(true);
      expect((await get(`/v1/jobs/${job.id}`)).body.data.last_backups[0].id).toBe(started.body.backup_id);
    });

    it('lists the later of two backups started in the same second first under -created_at', async () => {
      const job = (await get('/v1/jobs')).body.data.find((j: Json) => j.name === 'web-01 files');
      const first = await send('POST', `/v1/jobs/${job.id}/backups/start`, { is_daily: true });
      const second = await send('POST', `/v1/jobs/${job.id}/backups/start`, { is_daily: true });
      const newest = (await get(`/v1/jobs/${job.id}/backups?sort=-created_at`)).body.data as Json[];
      expect(newest.slice(0, 2).map((b) => b.id)).toEqual([second.body.backup_id, first.body.backup_id]);
      expect(first.body.tags).toEqual({ is_manual: false, is_hourly: false, is_daily: true, is_weekly: false, is_monthly: false });
    });

    it('ends started backups of a job named with "fail" as failed', async () => {
      const job = (await get('/v1/jobs')).body.data.find((j: Json) => j.name.includes('fail'));
      const started = await send('POST', `/v1/jobs/${job.id}/backups/start`, {});
      const done = await eventually(async () => {
        const b = (await get(`/v1/backups/${started.body.backup_id}`)).body.data;
        return b.status === 'pending' || b.status === 'running' ? undefined : b;
      });
      expect(done.status).toBe('failed');
      expect(done.files).toEqual([]);
    });

    it('gives signed download URLs for a backup, then deletes it', async () => {
      const job = (await get('/v1/jobs')).body.data[0];
      const backup = (await get(`/v1/jobs/${job.id}/backups?status=completed`)).body.data[0];
      const urls = await send('POST', `/v1/backups/${backup.id}/download`);
      expect(urls.status).toBe(200);
      expect(Object.keys(urls.body.data)).toEqual(backup.files.map((f: Json) => f.name));
      for (const url of Object.values(urls.body.data) as string[]) expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/files\/.*signature=/);
      expect((await send('DELETE', `/v1/backups/${backup.id}`)).status).toBe(204);
      expect((await get(`/v1/backups/${backup.id}`)).status).toBe(404);
    });

    it('deletes all backups of a job with a 200 message', async () => {
      const job = (await get('/v1/jobs')).body.data.find((j: Json) => j.name === 'events mongodb');
      const total = (await get(`/v1/jobs/${job.id}/backups`)).body.meta.total;
      expect(total).toBeGreaterThan(0);
      const deleted = await send('DELETE', `/v1/jobs/${job.id}/backups`);
      expect(deleted.status).toBe(200);
      expect(deleted.body).toEqual({ message: `${total} backups scheduled for deletion.` });
      expect((await get(`/v1/jobs/${job.id}/backups`)).body.meta.total).toBe(0);
      expect((await get(`/v1/jobs/${job.id}`)).body.data.last_backups).toEqual([]);
    });

    it('moves a droplet through activate, pause, resume and deactivate', async () => {
      const droplet = (await get('/v1/cloud_i/droplets?status=inactive')).body.data[0];
      const status = async () => (await get(`/v1/cloud_i/droplets/${droplet.id}`)).body.data;
      expect((await send('PATCH', `/v1/cloud_i/droplets/${droplet.id}/pause`)).status).toBe(422);
      const activate = await send('PATCH', `/v1/cloud_i/droplets/${droplet.id}/activate`, {
        frequency: 12,
        retention: { daily: 5, weekly: 2 },
        timezone: 'Europe/Paris',
      });
      expect(activate.status).toBe(204);
      expect(await status()).toMatchObject({ status: 'active', frequency: 12, timezone: 'Europe/Paris', retention: { daily: 5, weekly: 2 } });
      expect((await send('PATCH', `/v1/cloud_i/droplets/${droplet.id}/pause`)).status).toBe(204);
      expect((await status()).status).toBe('paused');
      expect((await send('PATCH', `/v1/cloud_i/droplets/${droplet.id}/resume`)).status).toBe(204);
      expect((await status()).status).toBe('active');
      expect((await send('PATCH', `/v1/cloud_i/droplets/${droplet.id}/deactivate`)).status).toBe(204);
      expect((await status()).status).toBe('inactive');
      const missing = await send('PATCH', `/v1/cloud_i/droplets/${droplet.id}/activate`, {});
      expect(Object.keys(missing.body.errors).sort()).toEqual(['frequency', 'retention', 'timezone']);
    });

    it('takes a manual volume snapshot that completes, and deletes snapshots one or all', async () => {
      const volume = (await get('/v1/cloud_i/volumes?status=active')).body.data[0];
      const list = async () => (await get(`/v1/cloud_i/volumes/${volume.id}/snapshots?sort=-id`)).body.data as Json[];
      const before = (await list()).length;
      expect((await send('POST', `/v1/cloud_i/volumes/${volume.id}/snapshots/manual`)).status).toBe(204);
      const manual = (await list())[0];
      expect(manual.tags.manual).toBe(1);
      await eventually(async () => ((await list())[0].status === 'completed' ? true : undefined));
      expect((await send('DELETE', `/v1/cloud_i/volumes/${volume.id}/snapshots/${manual.id}`)).status).toBe(204);
      expect((await list()).length).toBe(before);
      expect((await send('DELETE', `/v1/cloud_i/volumes/${volume.id}/snapshots`)).status).toBe(204);
      expect(await list()).toEqual([]);
    });

    it('activates, deactivates and clears snapshot resources', async () => {
      const resource = (await get('/v1/snapshots/resources')).body.data.find((r: Json) => !r.backups_activated);
      const activate = await send('PATCH', `/v1/snapshots/resources/${resource.id}/activate`, {
        frequency: 'h24',
        retention_hourly: 0,
        retention_daily: 7,
        retention_weekly: 4,
        retention_monthly: 1,
        timezone: 'UTC',
        run_offset: 2,
      });
      expect(activate.status).toBe(204);
      expect((await get(`/v1/snapshots/resources/${resource.id}`)).body.data.backups_activated).toBe(true);
      await send('PATCH', `/v1/snapshots/resources/${resource.id}/deactivate`);
      expect((await get(`/v1/snapshots/resources/${resource.id}`)).body.data.backups_activated).toBe(false);
      const activated = (await get('/v1/snapshots/resources')).body.data.find((r: Json) => r.backups_activated);
      const ofResource = async () =>
        ((await get('/v1/snapshots?page_size=100')).body.data as Json[]).filter((s) => s.resource.id === activated.id);
      expect((await ofResource()).length).toBeGreaterThan(0);
      expect((await send('DELETE', `/v1/snapshots/resources/${activated.id}/clear`)).status).toBe(204);
      expect(await ofResource()).toEqual([]);
    });

    it('creates a job, updates its storage and schedule, and attaches keys and proxies', async () => {
      const created = await send('POST', '/v1/jobs', {
        name: 'nightly files',
        recipe_id: 1,
        config: { root_path: '/srv', use_sudo: true },
        compute: { type: 'server', server_id: 2 },
        storage: [{ storage_id: 1, priority: 1 }],
        schedules: [{ order: 1, cron: '0 2 * * *', timezone: 'Europe/Paris', retention_daily: 7 }],
      });
      expect(created.status).toBe(201);
      const job = created.body.data;
      expect(job).toMatchObject({ name: 'nightly files', compute_type: 'server', last_backups: [] });
      expect(job.config.use_sudo).toEqual({ value: 'True', label: 'Use sudo', type: 'checkbox' });
      expect((await send('PATCH', `/v1/jobs/${job.id}/storage`, { storage: [{ storage_id: 3, priority: 1 }, { storage_id: 2, priority: 2 }] })).status).toBe(204);
      const scheduleId = job.schedule[0].id;
      expect((await send('PATCH', `/v1/jobs/${job.id}/schedules/${scheduleId}`, { timezone: 'UTC', run_offset: 1 })).status).toBe(204);
      const shown = (await get(`/v1/jobs/${job.id}`)).body.data;
      expect(shown.storage.map((s: Json) => s.id)).toEqual([3, 2]);
      expect(shown.schedule[0]).toMatchObject({ timezone: 'UTC', run_offset: 1 });
      expect((await send('POST', `/v1/jobs/${job.id}/encryption-key`, { encryption_key_id: 1 })).status).toBe(204);
      expect((await send('POST', `/v1/jobs/${job.id}/encryption-key`, { encryption_key_id: 99 })).status).toBe(422);
      expect((await send('DELETE', `/v1/jobs/${job.id}/encryption-key`)).status).toBe(204);
      expect((await send('POST', `/v1/jobs/${job.id}/proxy`, { proxy_id: 2 })).status).toBe(204);
      expect((await send('DELETE', `/v1/jobs/${job.id}/proxy`)).status).toBe(204);
      expect((await send('DELETE', `/v1/jobs/${job.id}`)).status).toBe(204);
      expect((await get(`/v1/jobs/${job.id}`)).status).toBe(404);
    });

    it('validates job creation', async () => {
      const { status, body } = await send('POST', '/v1/jobs', { compute: { type: 'server' }, storage: [], schedules: [{ cron: 'often' }] });
      expect(status).toBe(422);
      expect(Object.keys(body.errors).sort()).toEqual(
        ['compute.server_id', 'name', 'recipe_id', 'schedules.0.cron', 'schedules.0.timezone', 'storage'].sort(),
      );
    });

    it('shows restore jobs, with files only in the single answer', async () => {
      const list = (await get('/v1/restore-jobs')).body.data as Json[];
      expect(list).toHaveLength(3);
      expect(list[0]).not.toHaveProperty('files');
      expect(list[0].compute.server).not.toHaveProperty('key');
      const done = list.find((r) => r.status === 'completed')!;
      expect((await get(`/v1/restore-jobs/${done.id}`)).body.data.files.length).toBeGreaterThan(0);
      expect((await get('/v1/restore-jobs?status=running')).body.data).toHaveLength(1);
    });

    it('creates and deletes encryption keys, checking the PEM', async () => {
      const { generateKeyPair } = await import('node:crypto');
      const { promisify } = await import('node:util');
      // Off the event loop: made synchronously, a 4096-bit key held this process (and so the in-process
      // emulator) for seconds on a loaded machine, and the next request met a keep-alive socket the
      // server had just timed out (ECONNRESET).
      const { publicKey } = await promisify(generateKeyPair)('rsa', {
        modulusLength: 4096,
        publicKeyEncoding: { type: 'spki', format: 'pem' },
        privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
      });
      const created = await send('POST', '/v1/encryption-keys', { name: 'laptop', public_key: publicKey });
      expect(created.status).toBe(201);
      expect(created.body.data).toMatchObject({ name: 'laptop', public_key: publicKey });
      expect((await send('POST', '/v1/encryption-keys', { name: 'bad', public_key: 'nope' })).status).toBe(422);
      expect((await send('DELETE', `/v1/encryption-keys/${created.body.data.id}`)).status).toBe(204);
    });

    it('records requests with query, headers and parsed body', async () => {
      emu.clearRequests();
      await send('PATCH', '/v1/ssh-keys/1/rename', { name: 'Default key' });
      const [req] = emu.requests;
      expect(req).toMatchObject({ server: 'api', method: 'PATCH', path: '/v1/ssh-keys/1/rename', body: { name: 'Default key' }, status: 204 });
      expect(req!.headers.authorization).toBe(`Bearer ${emu.token}`);
    });
  });

  describe('control endpoints', () => {
    it('serves health, requests and faults without auth, and does not record them', async () => {
      emu.clearRequests();
      await get('/v1/ssh-keys');
      expect((await fetch(`${emu.url}/__emulator/health`)).status).toBe(200);
      const recorded = (await (await fetch(`${emu.url}/__emulator/requests`)).json()) as Json[];
      expect(recorded.map((r) => r.path)).toEqual(['/v1/ssh-keys']);
      const set = await fetch(`${emu.url}/__emulator/faults`, { method: 'POST', body: JSON.stringify({ rules: [{ fault: '500', count: 1, path: '/v1/storage' }] }) });
      expect(set.status).toBe(200);
      expect((await get('/v1/storage')).status).toBe(500);
      expect((await get('/v1/storage')).status).toBe(200);
      expect((await fetch(`${emu.url}/__emulator/faults`, { method: 'POST', body: '{"rules":[{"fault":"boom"}]}' })).status).toBe(422);
      expect((await fetch(`${emu.url}/__emulator/requests`, { method: 'DELETE' })).status).toBe(204);
      expect(emu.requests).toEqual([]);
    });
  });
});

describe('emulator seeds and options', () => {
  it('starts empty with only the first SSH key', async () => {
    const emu = await startTestEmulator({ seed: 'empty', token: 'emu_fixed' });
    try {
      expect(emu.token).toBe('emu_fixed');
      const body = async (p: string) => (await (await apiFetch(emu, p)).json()) as Json;
      expect((await body('/v1/ssh-keys')).data).toHaveLength(1);
      for (const p of ['/v1/servers', '/v1/jobs', '/v1/storage', '/v1/snapshots', '/v1/restore-jobs', '/v1/cloud_i/droplets']) {
        expect((await body(p)).meta.total).toBe(0);
      }
    } finally {
      await emu.close();
    }
  });

  it('makes a random emu_ token by default and the same demo data on every start', async () => {
    const a = await startEmulator({ seed: 'demo' });
    const b = await startEmulator({ seed: 'demo' });
    try {
      expect(a.token).toMatch(/^emu_[0-9a-f]{32}$/);
      expect(a.token).not.toBe(b.token);
      const ids = async (emu: typeof a) => ((await (await apiFetch(emu, '/v1/jobs')).json()) as Json).data.map((j: Json) => j.id);
      expect(await ids(a)).toEqual(await ids(b));
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('adds a bulk job with the asked number of backups', async () => {
    const emu = await startTestEmulator({ seed: 'empty', bigJob: 500 });
    try {
      const jobs = ((await (await apiFetch(emu, '/v1/jobs')).json()) as Json).data;
      expect(jobs.map((j: Json) => j.name)).toEqual(['bulk']);
      const page = (await (await apiFetch(emu, `/v1/jobs/${jobs[0].id}/backups?page_size=100&page=5&sort=-created_at`)).json()) as Json;
      expect(page.meta).toMatchObject({ total: 500, last_page: 5, from: 401, to: 500 });
      const small = (await (await apiFetch(emu, `/v1/jobs/${jobs[0].id}/backups?page=17`)).json()) as Json;
      // 34 pages: Laravel's window shows 1 2 ... 14-20 ... 33 34.
      expect(small.meta.links.map((l: Json) => l.label).slice(1, -1)).toEqual(
        ['1', '2', '...', '14', '15', '16', '17', '18', '19', '20', '...', '33', '34'],
      );
    } finally {
      await emu.close();
    }
  });

  it('ends started backups as backupOutcome says', async () => {
    const emu = await startTestEmulator({ backupOutcome: 'completed_with_errors' });
    try {
      const job = ((await (await apiFetch(emu, '/v1/jobs')).json()) as Json).data[0];
      const started = (await (await apiFetch(emu, `/v1/jobs/${job.id}/backups/start`, { method: 'POST', json: {} })).json()) as Json;
      const done = await eventually(async () => {
        const b = ((await (await apiFetch(emu, `/v1/backups/${started.backup_id}`)).json()) as Json).data;
        return b.status === 'completed_with_errors' ? b : undefined;
      });
      expect(done.files.length).toBeGreaterThan(0);
    } finally {
      await emu.close();
    }
  });

  it('serves every endpoint of the interface and the real extras, from one route table', () => {
    const normalize = (e: string) => e.replace(/\{[^}]+\}/g, '{}');
    const fixture = JSON.parse(readFileSync(path.join(ROOT, 'test', 'fixtures', 'interface-endpoints.json'), 'utf8')) as {
      endpoints: { method: string; path: string; source: string }[];
    };
    const documented = fixture.endpoints.filter((e) => e.source === 'interface').map((e) => normalize(`${e.method} ${e.path}`));
    const extras = fixture.endpoints.filter((e) => e.source === 'extra').map((e) => normalize(`${e.method} ${e.path}`));
    const served = emulatorRoutes().map((r) => normalize(`${r.method} ${r.path}`));
    expect(new Set(documented).size).toBe(62);
    expect(served.length).toBe(new Set(served).size);
    expect(new Set(served)).toEqual(new Set([...documented, ...extras]));
  });
});
