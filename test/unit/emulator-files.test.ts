// The files server behind signed URLs: whole files, ranges, no auth, refusals.
import { describe, expect, it } from 'vitest';
import { parseRange } from '../../src/emulator/files.js';
import { apiFetch, fileRequests, withEmulator } from '../helpers/emulator.js';

type Json = any;

describe('emulator files server', () => {
  const emu = withEmulator();

  async function someFile(): Promise<{ name: string; size: string; url: string }> {
    const jobs = ((await (await apiFetch(emu, '/v1/jobs')).json()) as Json).data;
    const backup = ((await (await apiFetch(emu, `/v1/jobs/${jobs[0].id}/backups?status=completed&sort=-created_at`)).json()) as Json).data[0];
    return backup.files[0];
  }

  /** Bytes stated by a size text: "744 bytes", "92 KB", "150.25 KB". */
  function statedBytes(size: string): number {
    const [amount, unit] = size.split(' ');
    return Number(amount) * 1024 ** ['bytes', 'KB', 'MB', 'GB'].indexOf(unit!);
  }

  it('serves a file whose length matches its size text, without any Authorization', async () => {
    const file = await someFile();
    emu.clearRequests();
    const res = await fetch(file.url);
    expect(res.status).toBe(200);
    const body = Buffer.from(await res.arrayBuffer());
    expect(body.length).toBe(statedBytes(file.size));
    expect(res.headers.get('content-length')).toBe(String(body.length));
    expect(res.headers.get('accept-ranges')).toBe('bytes');
    const [req] = fileRequests(emu);
    expect(req).toMatchObject({ server: 'files', method: 'GET', status: 200 });
    expect(req!.headers.authorization).toBeUndefined();
  });

  it('gives the same bytes every time and answers byte ranges with 206', async () => {
    const file = await someFile();
    const whole = Buffer.from(await (await fetch(file.url)).arrayBuffer());
    expect(Buffer.from(await (await fetch(file.url)).arrayBuffer()).equals(whole)).toBe(true);

    const part = await fetch(file.url, { headers: { Range: 'bytes=100-199' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 100-199/${whole.length}`);
    expect(part.headers.get('content-length')).toBe('100');
    expect(Buffer.from(await part.arrayBuffer()).equals(whole.subarray(100, 200))).toBe(true);

    const tail = await fetch(file.url, { headers: { Range: 'bytes=1000-' } });
    expect(Buffer.from(await tail.arrayBuffer()).equals(whole.subarray(1000))).toBe(true);

    const beyond = await fetch(file.url, { headers: { Range: `bytes=${whole.length}-` } });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get('content-range')).toBe(`bytes */${whole.length}`);
  });

  it('serves the URLs of the download endpoint too', async () => {
    const jobs = ((await (await apiFetch(emu, '/v1/jobs')).json()) as Json).data;
    const backup = ((await (await apiFetch(emu, `/v1/jobs/${jobs[1].id}/backups?status=completed`)).json()) as Json).data[0];
    const urls = ((await (await apiFetch(emu, `/v1/backups/${backup.id}/download`, { method: 'POST' })).json()) as Json).data;
    for (const file of backup.files) {
      const res = await fetch(urls[file.name]);
      expect(res.status).toBe(200);
      expect((await res.arrayBuffer()).byteLength).toBe(statedBytes(file.size));
    }
  });

  it('refuses a tampered signature with 403 and an unknown file with 404', async () => {
    const file = await someFile();
    const tampered = file.url.replace(/signature=([0-9a-f])/, (_, c: string) => `signature=${c === '0' ? '1' : '0'}`);
    const forbidden = await fetch(tampered);
    expect(forbidden.status).toBe(403);
    expect(await forbidden.text()).toContain('SignatureDoesNotMatch');
    const unsigned = await fetch(file.url.split('?')[0]!);
    expect(unsigned.status).toBe(403);
    const missing = await fetch(`${emu.filesUrl}/nothing`);
    expect(missing.status).toBe(404);
  });

  it('does not serve files of a deleted backup', async () => {
    const jobs = ((await (await apiFetch(emu, '/v1/jobs')).json()) as Json).data;
    const backup = ((await (await apiFetch(emu, `/v1/jobs/${jobs[2].id}/backups?status=completed`)).json()) as Json).data[0];
    await apiFetch(emu, `/v1/backups/${backup.id}`, { method: 'DELETE' });
    expect((await fetch(backup.files[0].url)).status).toBe(404);
  });
});

describe('parseRange', () => {
  it('reads the single-range forms and leaves the rest to a whole answer', () => {
    expect(parseRange('bytes=0-9', 100)).toEqual([0, 9]);
    expect(parseRange('bytes=90-', 100)).toEqual([90, 99]);
    expect(parseRange('bytes=-10', 100)).toEqual([90, 99]);
    expect(parseRange('bytes=50-500', 100)).toEqual([50, 99]);
    expect(parseRange('bytes=100-', 100)).toBe('unsatisfiable');
    expect(parseRange('bytes=0-1,5-6', 100)).toBeUndefined();
    expect(parseRange(undefined, 100)).toBeUndefined();
  });
});
