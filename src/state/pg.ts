// The PostgreSQL state backend's connection and schema (docs/assurance.md, "State backends"). The
// schema `backupctl` is created and migrated by backupctl itself: `backupctl.schema_version` holds one
// row per migration applied, under an advisory lock so that two first runs at once do not race. A state
// made by a newer backupctl (a version this one does not know) is refused, never written.
//
// What is stored is keyed by the service (src/state/marks.ts serviceKey: base URL and a fingerprint of
// the token, never the token), so profiles and teams sharing one database never mix. No password or
// token is ever written; the state URL's password is never printed (src/config/state-url.ts).
import type { Client, ClientConfig, Pool, PoolClient } from 'pg';
import { ConfigError } from '../errors.js';
import { redactStateUrl, withoutPassword } from '../config/state-url.js';

/** The migrations, in order: number i + 1 is MIGRATIONS[i]. Append only. */
export const MIGRATIONS: readonly string[] = [
  // 1: the per-backup marks of verify and restore-test (src/state/marks.ts), one row per service, backup and kind.
  `CREATE TABLE backupctl.marks (
     service text NOT NULL,
     backup_id text NOT NULL,
     kind text NOT NULL CHECK (kind IN ('verify', 'restore_test')),
     job_id text NOT NULL,
     created_at text,
     last jsonb NOT NULL,
     conclusive jsonb,
     PRIMARY KEY (service, backup_id, kind)
   );
   CREATE INDEX marks_by_job ON backupctl.marks (service, job_id)`,
  // 2: the leases of assure run's runners (src/state/pg-leases.ts): one row per service, job and kind of test.
  `CREATE TABLE backupctl.assure_leases (
     service text NOT NULL,
     job_id text NOT NULL,
     kind text NOT NULL CHECK (kind IN ('verify', 'restore_test')),
     holder text,
     until timestamptz,
     done_at timestamptz,
     PRIMARY KEY (service, job_id, kind)
   )`,
  // 3: the rest of what the state folder held (src/state/open.ts): the catalog's fingerprints and listings
  // (src/state/pg-catalog.ts), the anomalies accepted as the new normal (--ack), verify's ledger of file
  // hashes (src/state/pg-ledger.ts), retention's predictions (src/state/pg-predictions.ts) and the memory
  // of each job's schedule timing. Every row is keyed by the service.
  `CREATE TABLE backupctl.catalog_fingerprints (
     service text NOT NULL,
     backup_id text NOT NULL,
     job_id text,
     created_at text,
     fingerprint jsonb NOT NULL,
     PRIMARY KEY (service, backup_id)
   );
   CREATE INDEX catalog_fingerprints_by_job ON backupctl.catalog_fingerprints (service, job_id);
   CREATE TABLE backupctl.catalog_listings (
     service text NOT NULL,
     backup_id text NOT NULL,
     name text NOT NULL,
     sha256 text NOT NULL,
     data bytea NOT NULL,
     PRIMARY KEY (service, backup_id, name)
   );
   CREATE TABLE backupctl.anomaly_acks (
     service text NOT NULL,
     backup_id text NOT NULL,
     job_id text NOT NULL,
     at text NOT NULL,
     note text,
     PRIMARY KEY (service, backup_id)
   );
   CREATE TABLE backupctl.verify_ledger (
     service text NOT NULL,
     backup_id text NOT NULL,
     file_name text NOT NULL,
     sha256 text NOT NULL,
     bytes bigint NOT NULL,
     first_seen text NOT NULL,
     last_verified text NOT NULL,
     PRIMARY KEY (service, backup_id, file_name)
   );
   CREATE TABLE backupctl.retention_predictions (
     service text NOT NULL,
     target text NOT NULL,
     recorded_at text NOT NULL,
     record jsonb NOT NULL,
     PRIMARY KEY (service, target, recorded_at)
   );
   CREATE TABLE backupctl.schedule_timings (
     service text NOT NULL,
     job_id text NOT NULL,
     timing text NOT NULL,
     since bigint NOT NULL,
     PRIMARY KEY (service, job_id)
   )`,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** An arbitrary constant: the advisory lock that orders migrations. */
const MIGRATION_LOCK = 4_407_331;

const migrated = new Set<string>();

type PgModule = typeof import('pg');

async function loadPg(): Promise<PgModule> {
  const m = (await import('pg')) as PgModule & { default?: PgModule };
  return m.default ?? m;
}

/** A state database's failure as the user sees it: exit 3, the URL without its password. */
export function stateError(url: string, what: string, err: unknown): ConfigError {
  const message = withoutPassword(err instanceof Error ? err.message || String((err as NodeJS.ErrnoException).code ?? err) : String(err), url);
  return new ConfigError(`${what} the state database ${redactStateUrl(url)}: ${message}`, [
    '  The state URL comes from BACKUPCTL_STATE_URL or the profile\'s state_url; nothing was read from or written to the state folder instead.',
  ]);
}

/** Connects to the state database and brings its schema up to date (once per process and URL). */
export async function connectState(url: string, timeoutMs = 10_000): Promise<Client> {
  const pg = await loadPg();
  const config: ClientConfig = { connectionString: url, connectionTimeoutMillis: timeoutMs, application_name: 'backupctl' };
  const client = new pg.Client(config);
  // An error after connecting (the server went away) surfaces on the next query; without a listener it would end the process.
  client.on('error', () => {});
  try {
    await client.connect();
  } catch (err) {
    await client.end().catch(() => {});
    throw stateError(url, 'cannot reach', err);
  }
  if (!migrated.has(url)) {
    try {
      await migrate(client);
    } catch (err) {
      await client.end().catch(() => {});
      throw err instanceof ConfigError ? err : stateError(url, 'cannot prepare', err);
    }
    migrated.add(url);
  }
  return client;
}

const pools = new Map<string, Pool>();

/** The process's pool of connections to one state (a connection costs an authentication: reused, not made per call). */
async function poolOf(url: string, timeoutMs: number): Promise<Pool> {
  let pool = pools.get(url);
  if (!pool) {
    const pg = await loadPg();
    pool = new pg.Pool({ connectionString: url, connectionTimeoutMillis: timeoutMs, application_name: 'backupctl', max: 4, idleTimeoutMillis: 5_000, allowExitOnIdle: true });
    pool.on('error', () => {});
    pools.set(url, pool);
  }
  return pool;
}

/** Runs `fn` on a pooled connection to the state; a database error is exit 3 with the URL redacted. */
export async function withState<T>(url: string, fn: (client: Client) => Promise<T>, timeoutMs = 10_000): Promise<T> {
  const pool = await poolOf(url, timeoutMs);
  let client: PoolClient;
  try {
    client = await pool.connect();
  } catch (err) {
    throw stateError(url, 'cannot reach', err);
  }
  let broken: Error | undefined;
  try {
    if (!migrated.has(url)) {
      await migrate(client);
      migrated.add(url);
    }
    return await fn(client);
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    // A database error carries a SQLSTATE `code`; anything else is a bug of ours and goes up as it is.
    if (typeof (err as { code?: unknown }).code === 'string' || (err as Error).message?.includes('Connection terminated')) {
      broken = err as Error;
      throw stateError(url, 'cannot use', err);
    }
    throw err;
  } finally {
    client.release(broken);
  }
}

/** Runs `fn` in one transaction (rolled back when it throws). */
export async function inTransaction<T>(client: Client, fn: () => Promise<T>): Promise<T> {
  await client.query('BEGIN');
  try {
    const out = await fn();
    await client.query('COMMIT');
    return out;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  }
}

/** The schema's version in the database (0: none yet). */
export async function schemaVersion(client: Client): Promise<number> {
  const exists = await client.query<{ t: string | null }>(`SELECT to_regclass('backupctl.schema_version')::text AS t`);
  if (!exists.rows[0]?.t) return 0;
  const r = await client.query<{ v: number | null }>('SELECT coalesce(max(version), 0) AS v FROM backupctl.schema_version');
  return Number(r.rows[0]?.v ?? 0);
}

async function migrate(client: Client): Promise<void> {
  // Already current: one query, no lock.
  const now = await schemaVersion(client);
  if (now === SCHEMA_VERSION) return;
  if (now > SCHEMA_VERSION) throw newer(now);
  await inTransaction(client, async () => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query('CREATE SCHEMA IF NOT EXISTS backupctl');
    await client.query('CREATE TABLE IF NOT EXISTS backupctl.schema_version (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
    const at = await schemaVersion(client);
    if (at > SCHEMA_VERSION) throw newer(at);
    for (let v = at + 1; v <= SCHEMA_VERSION; v++) {
      await client.query(MIGRATIONS[v - 1]!);
      await client.query('INSERT INTO backupctl.schema_version (version) VALUES ($1)', [v]);
    }
  });
}

function newer(version: number): ConfigError {
  return new ConfigError(`the state database has schema version ${version}, newer than this backupctl knows (${SCHEMA_VERSION}): upgrade backupctl`);
}
