// One parser of stated sizes (issue 23 §20): `jobs backup download` keeps the
// bound of a rounded size such as "12.5 KB" as verify does, so a file of
// another length is refused and leaves nothing behind.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hostileService } from '../helpers/servers.js';

const svc = hostileService();
const JOB = '3f2b1c9e-8d4a-4b7e-9c1d-2a5e6f7a8b9c';
const BACKUP = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';

/** A backup stating "12.5 KB" (12749..12851 bytes), whose file is served chunked (no Content-Length) with `bytes` bytes. */
function serve(bytes: number) {
  svc.handle = (req, res) => {
    if (req.url?.startsWith(`/v1/backups/${BACKUP}`)) {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ data: { id: BACKUP, job_id: JOB, status: 'completed', files: [{ name: 'db.sql.gz', size: '12.5 KB', url: `${svc.srv.url}/files/db.sql.gz` }] } }));
      return;
    }
    if (req.url?.startsWith('/files/')) {
      res.write(Buffer.alloc(Math.min(bytes, 4096), 1));
      let left = bytes - Math.min(bytes, 4096);
      while (left > 0) {
        const n = Math.min(left, 4096);
        res.write(Buffer.alloc(n, 1));
        left -= n;
      }
      res.end();
      return;
    }
    res.statusCode = 404;
    res.end('{}');
  };
}

async function download(bytes: number) {
  serve(bytes);
  const dir = mkdtempSync(path.join(tmpdir(), 'backupctl-stated-'));
  try {
    const r = await svc.cli(['jobs', 'backup', 'download', JOB, BACKUP, '--dir', dir]);
    return { r, files: readdirSync(dir) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('download keeps the bound of a rounded stated size', () => {
  it('a file within "12.5 KB" is written', async () => {
    const { r, files } = await download(12800);
    expect(r.code, r.stderr).toBe(0);
    expect(files).toEqual(['db.sql.gz']);
  });
  it('a file far larger than "12.5 KB" is refused, and no file is left', async () => {
    const { r, files } = await download(200_000);
    expect(r.code, r.stderr).not.toBe(0);
    expect(r.stderr).toContain('allows');
    expect(files).toEqual([]);
  });
  it('a file shorter than "12.5 KB" allows is refused, and no file is left', async () => {
    const { r, files } = await download(5000);
    expect(r.code, r.stderr).not.toBe(0);
    expect(files).toEqual([]);
  });
});
