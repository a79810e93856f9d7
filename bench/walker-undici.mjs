// The bare walker of bench/walker.mjs with undici as its transport instead of
// node:http (issue 31, "the transport at the floor"): the same walk (page 1, then
// the pages meta.last_page announces, 8 in flight, each record an ndjson line in
// page order), so that `npm run bench -- --only transport` shows what undici
// itself costs beside node:http, apart from anything backupctl does. It loads
// undici by the deep paths backupctl loads (src/http/undici.ts), not undici's
// index (fetch, WebSocket, caches: ~45 ms of start-up), and runs with the
// --liftoff-only flag backupctl runs with (src/boot.cjs).
//
//   WALK_API=dispatch   (default) dispatch() with a small handler, as backupctl's fetchAnswer does,
//                       8 connections;
//   WALK_API=request    undici's request() and body.text(), 8 connections;
//   WALK_API=pipelined  dispatch() over 2 connections, 4 requests pipelined on each;
//   WALK_API=dispatch2  dispatch() as `dispatch`, with pipelining: 2 (backupctl's setting:
//                       a connection takes its next request as soon as an answer ends,
//                       not one event-loop turn later).
//
//   BACKUPCTL_BASE_URL=... BACKUPCTL_TOKEN=... node --liftoff-only bench/walker-undici.mjs '/v1/jobs/<id>/backups?page_size=100'
import Agent from 'undici/lib/dispatcher/agent.js';
import Pool from 'undici/lib/dispatcher/pool.js';
import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';
import api from 'undici/lib/api/index.js';
import { IN_FLIGHT, walk } from './walk.mjs';

Object.assign(Dispatcher.prototype, api);

const base = new URL(process.env.BACKUPCTL_BASE_URL);
const mode = process.env.WALK_API || 'dispatch';
if (!['dispatch', 'dispatch2', 'request', 'pipelined'].includes(mode)) throw new Error(`WALK_API: dispatch, dispatch2, request or pipelined, not ${mode}`);
const dispatcher =
  mode === 'pipelined' ? new Pool(base.origin, { connections: 2, pipelining: 4 }) : new Agent({ connections: IN_FLIGHT, pipelining: mode === 'dispatch2' ? 2 : 1 });
const headers = { authorization: `Bearer ${process.env.BACKUPCTL_TOKEN}`, accept: 'application/json' };
const listPath = process.argv[2];

function pathOf(page) {
  const url = new URL(listPath, base);
  url.searchParams.set('page', String(page));
  return url.pathname + url.search;
}

/** One answer's body as text, gathered by a handler of its own (no stream). */
function dispatched(path) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let status = 0;
    dispatcher.dispatch(
      { origin: base.origin, path, method: 'GET', headers },
      {
        onRequestStart() {},
        onResponseStart(_c, code) {
          status = code;
        },
        onResponseData(_c, chunk) {
          chunks.push(chunk);
        },
        onResponseEnd() {
          if (status !== 200) reject(new Error(`GET ${path}: ${status}`));
          else resolve(Buffer.concat(chunks).toString('utf8'));
        },
        onResponseError(_c, err) {
          reject(err);
        },
      },
    );
  });
}

async function getPage(page) {
  const path = pathOf(page);
  if (mode !== 'request') return JSON.parse(await dispatched(path));
  const res = await dispatcher.request({ origin: base.origin, path, method: 'GET', headers });
  const text = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`GET ${path}: ${res.statusCode}`);
  return JSON.parse(text);
}

await walk(getPage);
await dispatcher.close();
