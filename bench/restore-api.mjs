// A stand-in for the service in the restore bench (bench/restore.mjs): just
// enough of the API for `backupctl restore-test <job-id>` to find one job and
// its newest completed backup, whose one file is the bench's dump behind a
// loopback URL (as the signed URL would serve it). The built CLI then reads it
// through the whole read pipeline (verify's checks on the way) and restores it.
import http from 'node:http';

const JOB = '0b5e7a1c-0000-4000-8000-00000000be4c';
const BACKUP = '0b5e7a1c-0000-4000-8000-0000000b4c0b';

/** Serves the API; `file` is { name, bytes, url } of the dump, `recipe` "postgresql" or "mysql". */
export function serveBackupApi(file, recipe) {
  const job = { id: JOB, name: `bench ${recipe}`, recipe, status: 'active' };
  const backup = {
    id: BACKUP,
    job_id: JOB,
    status: 'completed',
    created_at: '2026-01-01T00:00:00.000000Z',
    encryption_key: null,
    files: [{ id: BACKUP, name: file.name, size: `${file.bytes} bytes`, url: file.url }],
  };
  const server = http.createServer((req, res) => {
    const { pathname } = new URL(req.url, 'http://x');
    const send = (status, body) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (pathname === `/v1/jobs/${JOB}`) return send(200, { data: job });
    if (pathname === `/v1/jobs/${JOB}/backups`) return send(200, { data: [backup], meta: { current_page: 1, last_page: 1, per_page: 15, total: 1 }, links: { next: null } });
    if (pathname === `/v1/backups/${BACKUP}`) return send(200, { data: backup });
    send(404, { message: 'Not found.' });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, baseUrl: `http://127.0.0.1:${server.address().port}`, jobId: JOB })));
}
