// `backupctl state migrate --to <postgres://…|folder>` (issue 44 §3): copies the state in use (the state
// folder, or the PostgreSQL state named by BACKUPCTL_STATE_URL / the profile's state_url) to another state:
// a PostgreSQL database the team shares, or back to a folder. Every kind the state holds goes, of every
// service: the verify and restore-test marks, the catalog's fingerprints and listings, the anomalies
// acknowledged (--ack), verify's ledger of file hashes, retention's predictions and the memory of each
// job's schedule timing. Each is merged into what the target holds (the newer record wins; a known hash
// keeps its first sighting), so a copy run twice changes nothing.
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import * as z from 'zod/mini';
import type { Context, Handler } from '../contract/context.js';
import type { ModuleSpec } from '../contract/spec.js';
import { UsageError } from '../errors.js';

export const module: ModuleSpec = {
  name: 'state',
  commands: [
    {
      path: ['state', 'migrate'],
      summary: 'Copy this state to a PostgreSQL state the team shares, or back to a folder',
      description:
        'Reads everything the state in use holds (the state folder, $XDG_STATE_HOME/backupctl, or the PostgreSQL state that ' +
        'BACKUPCTL_STATE_URL or the profile\'s state_url names): the verify and restore-test marks, the catalog\'s fingerprints and ' +
        'listings, the anomalies acknowledged with --ack, verify\'s ledger of file hashes, retention\'s predictions and the memory of ' +
        'schedule timings, and merges it into the state --to names: a postgres:// URL (the schema is created or migrated there) or ' +
        'a folder. Everything is kept per service (base URL and a fingerprint of the token, never the token); of two records of one ' +
        'thing the newer wins, so running it again changes nothing. A catalog folder of a service that no profile and no other ' +
        'record names cannot be attributed and is left out (a warning says so). Then set state_url in the profile (or ' +
        'BACKUPCTL_STATE_URL) to use the new state. See docs/assurance.md.',
      examples: [
        'backupctl state migrate --to "postgres://backupctl@db.internal/backupctl"',
        'BACKUPCTL_STATE_URL=postgres://backupctl@db.internal/backupctl backupctl state migrate --to ~/.local/state/backupctl',
      ],
      params: [{ name: 'to', in: 'local', type: 'string', required: true, placeholder: 'url|folder', description: 'The state to copy to: postgres://… or a folder' }],
      output: { kind: 'object', schema: 'stateMigrate', messageField: 'message' },
      handler: 'migrate',
      local: true,
    },
  ],
};

const migrateSchema = z.object({
  from: z.string(),
  to: z.string(),
  marks: z.int(),
  fingerprints: z.int(),
  acks: z.int(),
  ledger_entries: z.int(),
  predictions: z.int(),
  timings: z.int(),
  services: z.int(),
  message: z.string(),
});

export const schemas = { stateMigrate: migrateSchema };

async function migrate(input: { values: Record<string, unknown> }, ctx: Context) {
  const raw = String(input.values.to ?? '').trim();
  if (!raw) throw new UsageError('--to needs a postgres:// URL or a folder');
  const [{ checkStateUrl, redactStateUrl }, { stateDir }] = await Promise.all([import('../config/state-url.js'), import('../config/paths.js')]);
  const toPg = /^[a-z][a-z0-9+.-]*:\/\//i.test(raw);
  const to = toPg ? checkStateUrl(raw, '--to') : path.resolve(raw);
  const fromUrl = (await ctx.settings()).stateUrl;
  const from = fromUrl ?? stateDir(ctx.env);
  if (to === (fromUrl ?? path.resolve(from))) throw new UsageError(`--to names the state in use (${fromUrl ? redactStateUrl(from) : from}): nothing to copy`);
  const source: End = fromUrl ? { url: fromUrl } : { dir: from };
  const target: End = toPg ? { url: to } : { dir: to };
  const counts = await copyState(ctx, source, target);
  const shown = { from: fromUrl ? redactStateUrl(from) : from, to: toPg ? redactStateUrl(to) : to };
  const { services, ...kinds } = counts;
  const parts = [plural(kinds.marks, 'mark'), plural(kinds.fingerprints, 'fingerprint'), plural(kinds.acks, 'acknowledgement'), plural(kinds.ledger_entries, 'ledger entry', 'ledger entries'), plural(kinds.predictions, 'prediction record'), plural(kinds.timings, 'schedule timing')];
  return {
    kind: 'object' as const,
    value: { ...shown, ...counts, message: `copied ${parts.join(', ')} of ${plural(services, 'service')} from ${shown.from} to ${shown.to}` },
  };
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** One end of a copy: a state folder or a state database. */
type End = { dir: string; url?: undefined } | { url: string; dir?: undefined };

/** Copies every kind the state holds, of every service, from one end to the other; the numbers copied. */
async function copyState(ctx: Context, from: End, to: End) {
  const [marks, pgMarks, ledger, pgLedger, audit, pgPredictions, timings, pgTimings] = await Promise.all([
    import('../state/marks.js'),
    import('../state/pg-marks.js'),
    import('../state/verify-ledger.js'),
    import('../state/pg-ledger.js'),
    import('../retention/audit.js'),
    import('../state/pg-predictions.js'),
    import('../state/schedule-timing.js'),
    import('../state/pg-timings.js'),
  ]);
  const markRows = from.url !== undefined ? await pgMarks.readPgMarks(from.url) : await marks.readFolderMarks(from.dir);
  const ledgerRows = from.url !== undefined ? await pgLedger.readPgLedger(from.url) : await ledger.readFolderLedger(from.dir);
  const predictionRows = from.url !== undefined ? ((await pgPredictions.readPgPredictions(from.url)) as import('../retention/audit.js').PredictionRow[]) : await audit.readFolderPredictions(from.dir);
  const timingRows = from.url !== undefined ? await pgTimings.readPgTimings(from.url) : await timings.readFolderTimings(from.dir);
  const known = new Set([...markRows, ...ledgerRows, ...predictionRows, ...timingRows].map((r) => r.service));
  const current = await ctx.settings().then((s) => marks.serviceKey(s.baseUrl, s.token), () => undefined);
  if (current) known.add(current);
  const catalog = await copyCatalogs(ctx, from, to, known);

  const out = {
    marks: to.url !== undefined ? await pgMarks.writePgMarks(to.url, markRows) : await marks.writeFolderMarks(to.dir, markRows),
    fingerprints: catalog.fingerprints,
    acks: catalog.acks,
    ledger_entries: to.url !== undefined ? await pgLedger.writePgLedger(to.url, ledgerRows) : await ledger.writeFolderLedger(to.dir, ledgerRows),
    predictions: to.url !== undefined ? await pgPredictions.writePgPredictions(to.url, predictionRows, 20) : await audit.writeFolderPredictions(to.dir, predictionRows),
    timings: to.url !== undefined ? await pgTimings.writePgTimings(to.url, timingRows) : await timings.writeFolderTimings(to.dir, timingRows),
  };
  const services = new Set([...markRows, ...ledgerRows, ...predictionRows, ...timingRows].map((r) => r.service));
  for (const s of catalog.services) services.add(s);
  return { ...out, services: services.size };
}

/**
 * Copies the catalogs (fingerprints with their listings, acknowledgements) of every service. A state folder
 * names a service's catalog by a hash of its key: a folder is copied when one of the `known` services (those
 * the other kinds name, and this profile's) hashes to it; any other is left out with a warning.
 */
async function copyCatalogs(ctx: Context, from: End, to: End, known: ReadonlySet<string>) {
  const [{ Catalog, catalogFolderOf }, { PgCatalog, pgCatalogServices }] = await Promise.all([import('../state/catalog.js'), import('../state/pg-catalog.js')]);
  let services: string[];
  if (from.url !== undefined) services = await pgCatalogServices(from.url);
  else {
    const folders = await readdir(path.join(from.dir, 'catalog')).catch(() => [] as string[]);
    const byFolder = new Map([...known].map((s) => [catalogFolderOf(s), s]));
    services = folders.flatMap((f) => (byFolder.has(f) ? [byFolder.get(f)!] : []));
    const unknown = folders.filter((f) => !byFolder.has(f));
    if (unknown.length) ctx.warn(`${plural(unknown.length, 'catalog folder')} of a service no record or profile names ${unknown.length === 1 ? 'was' : 'were'} left out: ${unknown.join(', ')}`);
  }
  const open = (end: End, service: string) => (end.url !== undefined ? new PgCatalog(end.url, service) : Catalog.ofService(end.dir, service));
  let fingerprints = 0;
  let acks = 0;
  for (const service of services) {
    const src = open(from, service);
    const dst = open(to, service);
    for (const fp of await src.all()) {
      const there = await dst.get(fp.backup_id);
      // The newer read wins: a copy run twice writes nothing again.
      if (there && there.recorded_at >= fp.recorded_at) continue;
      await dst.put(fp, await src.listingBytes(fp));
      fingerprints++;
    }
    const dstAcks = new Map((await dst.acks()).map((a) => [a.backup_id, a]));
    for (const a of await src.acks()) {
      const there = dstAcks.get(a.backup_id);
      if (there && there.at >= a.at) continue;
      await dst.addAck(a);
      acks++;
    }
  }
  return { fingerprints, acks, services };
}

export const handlers: Record<string, Handler> = { migrate };
