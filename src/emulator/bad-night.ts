// The emulator's bad night (issue 33 §4), added with `backupctl emulator --bad-night`
// (and in the demo): two jobs with 22 nightly backups each, at 02:30 UTC.
//
// "file share" (tar.gz): 20 normal nights, each differing from the night before
// by exactly four changes: journal/day-<n>.txt added, journal/day-<n-8>.txt
// removed, config/app.conf changed, bin/run.sh's mode flipped (0755/0744);
// the journal grows 5% a night. Then two bad nights (the two newest): 60% of
// the office documents (.doc, .xls) replaced by random bytes and renamed
// *.locked, and a README_RESTORE_FILES.txt holding an onion address.
//
// "share zip" (a .zip of the same files, member by member): the same 20 normal
// nights and two bad ones, so that anomalies reads a zip's members too.
//
// "crm postgres" (a pg_dump plain .sql.gz): customers, orders and notes grow a
// little every night; on the newest night orders lost 90% of its rows.
//
// Everything is drawn from generators seeded by the job and the night, so the
// bytes are the same on every call and at any hour.
import { gzipSync } from 'node:zlib';
import { tarArchive, zipArchive, type TarEntry } from './archive-formats.js';
import { DAY, HOUR, MINUTE, createRng, pick, randInt, randomBytesFrom, type Rng } from './util.js';

export const BAD_NIGHT_JOBS = { files: 'file share', zip: 'share zip', sql: 'crm postgres' } as const;
export type BadNightJob = keyof typeof BAD_NIGHT_JOBS;
/** Nights in the history, oldest first; the last BAD_NIGHTS of "file share" are bad, and the last one of "crm postgres". */
export const NIGHTS = 22;
export const BAD_NIGHTS = 2;
/** The 2024-03-01 epoch of the archives' inner dates, plus a day a night. */
const EPOCH_S = 1_709_251_200;
const RUN_AT = 2 * HOUR + 30 * MINUTE;

const WORDS = ['budget', 'invoice', 'minutes', 'contract', 'payroll', 'forecast', 'inventory', 'supplier', 'meeting', 'roadmap', 'audit', 'quote'];
const DEPTS = ['finance', 'sales', 'hr', 'legal', 'ops'];
const OFFICE = ['doc', 'xls'];
const ONION = 'ransomxyz2fqhxgadj4kcm6rjvkwaouyb7aezo3ngu2qvtkdyq4ey7ad.onion';

function lines(rng: Rng, bytes: number): string {
  let out = '';
  while (out.length < bytes) out += `${Array.from({ length: randInt(rng, 4, 10) }, () => pick(rng, WORDS)).join(' ')} ${randInt(rng, 0, 99_999)}\n`;
  return out.slice(0, bytes);
}

interface Doc {
  path: string;
  data: Buffer;
  /** Chosen by the ransomware on a bad night. */
  victim: boolean;
}

let docs: Doc[] | undefined;
function officeDocs(): Doc[] {
  docs ??= Array.from({ length: 120 }, (_, n) => {
    const rng = createRng(0xd0c5 + n);
    const ext = n % 4 < 2 ? OFFICE[n % 2]! : n % 4 === 2 ? 'txt' : 'csv';
    const path = `docs/${DEPTS[n % DEPTS.length]}/${pick(rng, WORDS)}-${n}.${ext}`;
    // 60% of the office documents: those whose number's tenth is below 6.
    return { path, data: Buffer.from(lines(rng, randInt(rng, 1200, 2400))), victim: OFFICE.includes(ext) && n % 10 < 6 };
  });
  return docs;
}

/** The entries of night `night` (0 = the oldest) of "file share". */
export function fileShareEntries(night: number, bad: boolean): TarEntry[] {
  const mtime = (n: number) => EPOCH_S + n * 86_400;
  const entries: TarEntry[] = [];
  const dirs = ['bin/', 'config/', 'docs/', ...DEPTS.map((d) => `docs/${d}/`), 'journal/'];
  for (const d of dirs) entries.push({ name: d, data: Buffer.alloc(0), type: 'directory', mtime: mtime(0) });
  entries.push({ name: 'bin/run.sh', data: Buffer.from('#!/bin/sh\nexec /usr/local/bin/share-sync --config /srv/share/config/app.conf\n'), mode: night % 2 ? 0o744 : 0o755, mtime: mtime(0) });
  entries.push({ name: 'config/app.conf', data: Buffer.from(`# file share\nroot = /srv/share\nlast_sync_night = ${night}\nquota_gb = 200\n`), mtime: mtime(night) });
  const rng = createRng(0xbad0 + night);
  for (const doc of officeDocs()) {
    if (bad && doc.victim) {
      entries.push({ name: `${doc.path}.locked`, data: randomBytesFrom(rng, doc.data.length + randInt(rng, 0, 16)), mtime: mtime(night) });
    } else entries.push({ name: doc.path, data: doc.data, mtime: mtime(0) });
  }
  for (let day = Math.max(0, night - 7); day <= night; day++) {
    entries.push({ name: `journal/day-${day}.txt`, data: Buffer.from(lines(createRng(0x10a + day), Math.round(12_000 * 1.05 ** day))), mtime: mtime(day) });
  }
  if (bad) {
    entries.push({
      name: 'README_RESTORE_FILES.txt',
      data: Buffer.from(`All your files are encrypted.\nTo restore them, visit http://${ONION}/ and enter your key.\n`),
      mtime: mtime(night),
    });
  }
  return entries;
}

/** Rows of each table on night `night`; the newest night of a bad history lost 90% of orders. */
export function crmRows(night: number, bad: boolean): Record<'customers' | 'orders' | 'notes', number> {
  const orders = 600 + 12 * night;
  return { customers: 200 + 3 * night, orders: bad ? Math.round(orders / 10) : orders, notes: 80 + night };
}

/** A pg_dump plain dump of the crm database on night `night`. */
export function crmDump(night: number, bad: boolean): string {
  const rows = crmRows(night, bad);
  const rng = createRng(0xc4a + night);
  const out: string[] = [
    '--',
    '-- PostgreSQL database dump',
    '--',
    '',
    'SET statement_timeout = 0;',
    "SET client_encoding = 'UTF8';",
    'SET standard_conforming_strings = on;',
    "SELECT pg_catalog.set_config('search_path', '', false);",
    '',
    'CREATE TABLE public.customers (id integer NOT NULL, name text, email text);',
    'CREATE TABLE public.orders (id integer NOT NULL, customer_id integer, total numeric(10,2));',
    'CREATE TABLE public.notes (id integer NOT NULL, body text);',
    '',
    'COPY public.customers (id, name, email) FROM stdin;',
  ];
  for (let i = 1; i <= rows.customers; i++) out.push(`${i}\t${pick(rng, WORDS)} ${i}\tc${i}@example.com`);
  out.push('\\.', '', 'COPY public.orders (id, customer_id, total) FROM stdin;');
  // The bad night keeps the newest tenth of the orders.
  const first = 600 + 12 * night - rows.orders + 1;
  for (let i = first; i < first + rows.orders; i++) out.push(`${i}\t${1 + (i % rows.customers)}\t${randInt(rng, 100, 99_999) / 100}`);
  out.push('\\.', '', 'COPY public.notes (id, body) FROM stdin;');
  for (let i = 1; i <= rows.notes; i++) out.push(`${i}\t${pick(rng, WORDS)} ${pick(rng, WORDS)}`);
  out.push('\\.', '', '--', '-- PostgreSQL database dump complete', '--', '');
  return out.join('\n');
}

const cache = new Map<string, Buffer>();

/** The stored bytes of night `night` of a bad-night job (made once per emulator process). */
export function nightBytes(job: BadNightJob, night: number): Buffer {
  const key = `${job}/${night}`;
  let bytes = cache.get(key);
  if (!bytes) {
    const bad = job === 'sql' ? night === NIGHTS - 1 : night >= NIGHTS - BAD_NIGHTS;
    if (job === 'zip') {
      // The files only (a zip needs no folder entries); the random .locked ones stored, the rest deflated.
      const files = fileShareEntries(night, bad).filter((e) => e.type !== 'directory');
      bytes = zipArchive(files.map((e) => ({ name: e.name, data: e.data, method: e.name.endsWith('.locked') ? 0 : 8 })));
    } else {
      const raw = job === 'files' ? tarArchive(fileShareEntries(night, bad)) : Buffer.from(crmDump(night, bad));
      bytes = gzipSync(raw, { level: 6 });
    }
    cache.set(key, bytes);
  }
  return bytes;
}

/** The newest 02:30 UTC at least an hour before `now`: the newest night's run. */
export function newestNight(now: number): number {
  let at = Math.floor(now / DAY) * DAY + RUN_AT;
  while (at > now - HOUR) at -= DAY;
  return at;
}
