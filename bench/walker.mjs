// The bare walker `npm run bench` times beside backupctl (issue 14): what any
// program needs to print every record of a paged list, and nothing more.
// node:http with keep-alive; page 1, then the pages its meta.last_page
// announces, 8 in flight; each answer's JSON parsed and each record written
// to stdout as an ndjson line, in page order. No checks, retries or formats:
// the floor that `backupctl ... --all -o ndjson` is compared with. The walk itself is
// bench/walk.mjs, shared with bench/walker-undici.mjs.
//
//   BACKUPCTL_BASE_URL=... BACKUPCTL_TOKEN=... node bench/walker.mjs '/v1/jobs/<id>/backups?page_size=100'
import http from 'node:http';
import { IN_FLIGHT, walk } from './walk.mjs';

const base = process.env.BACKUPCTL_BASE_URL;
const agent = new http.Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
const headers = { authorization: `Bearer ${process.env.BACKUPCTL_TOKEN}`, accept: 'application/json' };
const listPath = process.argv[2];

function getPage(page) {
  const url = new URL(listPath, base);
  url.searchParams.set('page', String(page));
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent, headers }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          if (res.statusCode !== 200) reject(new Error(`GET ${url.pathname}${url.search}: ${res.statusCode}`));
          else resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        });
      })
      .on('error', reject);
  });
}

await walk(getPage);
agent.destroy();
