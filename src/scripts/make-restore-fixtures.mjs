#!/usr/bin/env node
// Makes the restore-test fixtures (issue 24 §5) with the REAL tools: it starts
// a private PostgreSQL and a private MariaDB (Unix sockets in a temporary
// folder, no TCP port; as the postgres / mysql account when run as root),
// creates a small shop (customers, products, orders, order_items: a few
// hundred rows, with quotes, tabs, backslashes, newlines and NULLs in the
// data, a view, a function, a trigger), and writes what pg_dump and
// mariadb-dump write into src/emulator/fixtures/restore/:
//   shop.pg.sql.gz            pg_dump -Fp (SET lines, \restrict, COPY, OWNER TO, constraints after the data)
//   shop.pgdump               pg_dump -Fc (custom format: PGDMP)
//   shop.mysql.sql.gz         mariadb-dump --databases shop (sandbox line, LOCK TABLES, extended INSERTs, /*!40101 */, DELIMITER ;; triggers)
// and the faults:
//   broken.pg.sql.gz          shop.pg.sql with one line replaced halfway by a syntax error (its line in manifest.json)
//   broken.mysql.sql.gz       the same for the MariaDB dump
//   missing-rows.pg.sql.gz    pg_dump --schema-only then pg_dump --data-only of a database whose trigger drops
//                             every 10th order: restored, public.orders holds fewer rows than its COPY block
//   needs-role.pg.sql.gz      pg_dump of a database owned by roles shop_owner / shop_reader (OWNER TO, GRANT):
//                             the target lacks them; it must pass, with warnings
//   two-databases.mysql.sql.gz mariadb-dump --databases shop shop_archive: refused (several databases)
// and manifest.json: each file's kind, tables with their rows, the line of the error.
// Run: node src/scripts/make-restore-fixtures.mjs   (needs postgresql and mariadb-server)
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const outDir = path.join(root, 'src/emulator/fixtures/restore');
const isRoot = process.getuid?.() === 0;

function account(name) {
  for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
    const f = line.split(':');
    if (f[0] === name) return { uid: Number(f[2]), gid: Number(f[3]) };
  }
  throw new Error(`no ${name} account`);
}
function which(name, extra = []) {
  for (const dir of [...(process.env.PATH ?? '').split(':'), ...extra]) {
    const f = path.join(dir, name);
    if (existsSync(f)) return f;
  }
  throw new Error(`${name} not found: install postgresql and mariadb-server`);
}
const pgBin = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a)).map((v) => `/usr/lib/postgresql/${v}/bin`);
function sh(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: opts.encoding ?? 'utf8', maxBuffer: 1 << 28, ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout;
}
function privateDir(who) {
  const dir = mkdtempSync(path.join('/tmp', 'backupctl-fixtures-'));
  chmodSync(dir, 0o700);
  if (who) chownSync(dir, who.uid, who.gid);
  return dir;
}
function startServer(cmd, args, who, ready) {
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...(who ?? {}) });
  let log = '';
  return new Promise((resolve, reject) => {
    const on = (d) => {
      log += d;
      if (ready.test(log)) resolve(child);
    };
    child.stdout.on('data', on);
    child.stderr.on('data', on);
    child.on('exit', (c) => reject(new Error(`${cmd} exited ${c}: ${log}`)));
  });
}
function stop(child, signal) {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}

const SHOP_PG = `
CREATE TABLE customers (id serial PRIMARY KEY, name text NOT NULL, email text UNIQUE, note text, created_at timestamptz NOT NULL);
CREATE TABLE products (id serial PRIMARY KEY, sku text NOT NULL UNIQUE, title text NOT NULL, price numeric(10,2) NOT NULL, tags jsonb);
CREATE TABLE orders (id serial PRIMARY KEY, customer_id int NOT NULL, status text NOT NULL, created_at timestamptz NOT NULL);
CREATE TABLE order_items (order_id int NOT NULL, line int NOT NULL, product_id int NOT NULL, qty int NOT NULL, PRIMARY KEY (order_id, line));
INSERT INTO customers (name, email, note, created_at)
  SELECT 'Customer ' || g, 'c' || g || '@example.com',
    CASE g % 5 WHEN 0 THEN NULL WHEN 1 THEN 'O''Brien said "hi"' WHEN 2 THEN E'tab\\there, back\\\\slash' WHEN 3 THEN E'two\\nlines (and parens)' ELSE 'caf\u00e9 \u2615' END,
    timestamptz '2026-10-01 00:00:00+00' + g * interval '7 hours'
  FROM generate_series(1, 60) g;
INSERT INTO products (sku, title, price, tags)
  SELECT 'SKU-' || lpad(g::text, 4, '0'), 'Product ' || g || CASE WHEN g % 7 = 0 THEN ' (limited); "special"' ELSE '' END, (g * 3.25)::numeric(10,2),
    CASE WHEN g % 3 = 0 THEN NULL ELSE jsonb_build_array('t' || (g % 4), 'x') END
  FROM generate_series(1, 40) g;
INSERT INTO orders (customer_id, status, created_at)
  SELECT 1 + (g * 7) % 60, (ARRAY['new', 'paid', 'shipped', 'cancelled'])[1 + g % 4], timestamptz '2026-11-01 00:00:00+00' + g * interval '3 hours'
  FROM generate_series(1, 150) g;
INSERT INTO order_items (order_id, line, product_id, qty)
  SELECT o, l, 1 + (o * 13 + l * 5) % 40, 1 + (o + l) % 4 FROM generate_series(1, 150) o, generate_series(1, 2) l;
ALTER TABLE orders ADD CONSTRAINT orders_customer_fk FOREIGN KEY (customer_id) REFERENCES customers(id);
ALTER TABLE order_items ADD CONSTRAINT items_order_fk FOREIGN KEY (order_id) REFERENCES orders(id);
ALTER TABLE order_items ADD CONSTRAINT items_product_fk FOREIGN KEY (product_id) REFERENCES products(id);
CREATE INDEX orders_created_idx ON orders (created_at);
CREATE VIEW order_totals AS SELECT o.id, sum(i.qty * p.price) AS total FROM orders o JOIN order_items i ON i.order_id = o.id JOIN products p ON p.id = i.product_id GROUP BY o.id;
CREATE FUNCTION order_count(cid int) RETURNS bigint LANGUAGE sql STABLE AS $body$ SELECT count(*) FROM orders WHERE customer_id = cid; $body$;
COMMENT ON TABLE orders IS 'one row per order; see order_items';
`;

const SHOP_MY = `
CREATE TABLE customers (id int AUTO_INCREMENT PRIMARY KEY, name varchar(100) NOT NULL, email varchar(200) UNIQUE, note text, created_at datetime NOT NULL) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
CREATE TABLE products (id int AUTO_INCREMENT PRIMARY KEY, sku varchar(20) NOT NULL UNIQUE, title varchar(200) NOT NULL, price decimal(10,2) NOT NULL) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
CREATE TABLE orders (id int AUTO_INCREMENT PRIMARY KEY, customer_id int NOT NULL, status varchar(20) NOT NULL, created_at datetime NOT NULL, FOREIGN KEY (customer_id) REFERENCES customers(id)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
CREATE TABLE order_items (order_id int NOT NULL, line int NOT NULL, product_id int NOT NULL, qty int NOT NULL, PRIMARY KEY (order_id, line), FOREIGN KEY (order_id) REFERENCES orders(id)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
CREATE TABLE audit (id int AUTO_INCREMENT PRIMARY KEY, what varchar(100)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
INSERT INTO customers (name, email, note, created_at)
  SELECT CONCAT('Customer ', seq), CONCAT('c', seq, '@example.com'),
    ELT(1 + seq % 5, NULL, 'O''Brien said "hi"', 'tab\\there, back\\\\slash', 'two\\nlines (and parens), too', 'caf\u00e9 \u2615'),
    TIMESTAMP '2026-10-01 00:00:00' + INTERVAL seq * 7 HOUR
  FROM seq_1_to_60;
INSERT INTO products (sku, title, price)
  SELECT CONCAT('SKU-', LPAD(seq, 4, '0')), CONCAT('Product ', seq, IF(seq % 7 = 0, ' (limited); "special"', '')), seq * 3.25 FROM seq_1_to_40;
INSERT INTO orders (customer_id, status, created_at)
  SELECT 1 + (seq * 7) % 60, ELT(1 + seq % 4, 'new', 'paid', 'shipped', 'cancelled'), TIMESTAMP '2026-11-01 00:00:00' + INTERVAL seq * 3 HOUR FROM seq_1_to_150;
INSERT INTO order_items (order_id, line, product_id, qty)
  SELECT o.seq, l.seq, 1 + (o.seq * 13 + l.seq * 5) % 40, 1 + (o.seq + l.seq) % 4 FROM seq_1_to_150 o, seq_1_to_2 l;
CREATE VIEW order_totals AS SELECT o.id, SUM(i.qty * p.price) AS total FROM orders o JOIN order_items i ON i.order_id = o.id JOIN products p ON p.id = i.product_id GROUP BY o.id;
CREATE TRIGGER orders_audit AFTER INSERT ON orders FOR EACH ROW INSERT INTO audit (what) VALUES (CONCAT('order ', NEW.id));
`;

const manifest = {
  generated_by: 'src/scripts/make-restore-fixtures.mjs',
  files: {},
};

async function postgresFixtures() {
  const who = isRoot ? account('postgres') : null;
  const dir = privateDir(who);
  const bin = (n) => which(n, pgBin);
  const initdb = pgBin.map((d) => path.join(d, 'initdb')).find(existsSync);
  const postgres = path.join(path.dirname(initdb), 'postgres');
  sh(initdb, ['-D', path.join(dir, 'data'), '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-locale', '-N'], who ?? {});
  const server = await startServer(postgres, ['-D', path.join(dir, 'data'), '-k', dir, '-c', 'listen_addresses=', '-F'], who, /ready to accept connections/);
  const env = { ...process.env, PGHOST: dir, PGUSER: 'postgres' };
  const psql = (db, sql) => sh(bin('psql'), ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', db, '-f', '-'], { env, input: sql });
  const dump = (args) => sh(bin('pg_dump'), args, { env, encoding: 'buffer' });
  try {
    psql('postgres', 'CREATE DATABASE shop; CREATE DATABASE shop_trigger; CREATE ROLE shop_owner; CREATE ROLE shop_reader; CREATE DATABASE shop_roles OWNER shop_owner;');
    psql('shop', SHOP_PG);
    const plain = dump(['-Fp', 'shop']);
    write('shop.pg.sql.gz', gzipSync(plain), { kind: 'pg-plain', tables: pgTables() });
    write('shop.pgdump', dump(['-Fc', 'shop']), { kind: 'pg-custom', tables: pgTables() });

    // broken: the line after the middle COPY block's "\." becomes a syntax error.
    const lines = plain.toString('utf8').split('\n');
    const ends = lines.map((l, i) => (l === '\\.' ? i : -1)).filter((i) => i >= 0);
    const at = ends[Math.floor(ends.length / 2)] + 1; // 0-based index of the line after "\."
    lines.splice(at, 1, 'CREATE TABLEX broken_halfway (id int);');
    write('broken.pg.sql.gz', gzipSync(lines.join('\n')), { kind: 'pg-plain', error_line: at + 1, error: 'syntax error at or near "TABLEX"' });

    // missing rows: a trigger that drops every 10th order, in the schema; then the data.
    psql('shop_trigger', SHOP_PG);
    psql('shop_trigger', `CREATE FUNCTION drop_tenth() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.id % 10 = 0 THEN RETURN NULL; END IF; RETURN NEW; END $$;
CREATE TRIGGER orders_drop_tenth BEFORE INSERT ON orders FOR EACH ROW EXECUTE FUNCTION drop_tenth();
ALTER TABLE order_items DROP CONSTRAINT items_order_fk;`);
    const schema = dump(['-Fp', '--schema-only', 'shop_trigger']);
    // Data without the foreign keys' order mattering: the tables' data only, in dependency order.
    const data = dump(['-Fp', '--data-only', 'shop_trigger']);
    write('missing-rows.pg.sql.gz', gzipSync(Buffer.concat([schema, data])), { kind: 'pg-plain', tables: pgTables(), short_table: 'public.orders', restored_rows: 135 });

    // needs a role: objects owned by shop_owner, SELECT granted to shop_reader.
    psql('shop_roles', `SET ROLE shop_owner; ${SHOP_PG.split('\n').filter((l) => !/FUNCTION|COMMENT/.test(l)).join('\n')}
GRANT SELECT ON ALL TABLES IN SCHEMA public TO shop_reader;
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT ON TABLES TO shop_reader;`);
    write('needs-role.pg.sql.gz', gzipSync(dump(['-Fp', 'shop_roles'])), { kind: 'pg-plain', tables: pgTables(), warnings: ['OWNER TO', 'GRANT'] });
  } finally {
    await stop(server, 'SIGINT');
    rmSync(dir, { recursive: true, force: true });
  }
}

function pgTables() {
  return { 'public.customers': 60, 'public.products': 40, 'public.orders': 150, 'public.order_items': 300 };
}

async function mariadbFixtures() {
  const who = isRoot ? account('mysql') : null;
  const dir = privateDir(who);
  const sbin = ['/usr/sbin', '/usr/local/sbin'];
  sh(which('mariadb-install-db', sbin), ['--no-defaults', `--datadir=${path.join(dir, 'data')}`, '--auth-root-authentication-method=normal', '--skip-test-db'], who ?? {});
  const sock = path.join(dir, 'mysqld.sock');
  const server = await startServer(which('mariadbd', sbin), ['--no-defaults', `--datadir=${path.join(dir, 'data')}`, `--socket=${sock}`, '--skip-networking', `--pid-file=${path.join(dir, 'pid')}`, '--skip-log-bin'], who, /ready for connections/);
  const client = (db, sql) => sh(which('mariadb'), ['--no-defaults', `--socket=${sock}`, '--user=root', ...(db ? [db] : [])], { input: sql });
  const dump = (args) => sh(which('mariadb-dump'), ['--no-defaults', `--socket=${sock}`, '--user=root', ...args], { encoding: 'buffer' });
  try {
    client(null, 'CREATE DATABASE shop; CREATE DATABASE shop_archive;');
    client('shop', SHOP_MY);
    client('shop_archive', 'CREATE TABLE old_orders (id int PRIMARY KEY, note varchar(50)); INSERT INTO old_orders VALUES (1, \'a\'), (2, \'b\');');
    const text = dump(['--routines', '--databases', 'shop']);
    const tables = { 'shop.customers': 60, 'shop.products': 40, 'shop.orders': 150, 'shop.order_items': 300, 'shop.audit': 0 };
    write('shop.mysql.sql.gz', gzipSync(text), { kind: 'mysql', tables, warnings: ['USE', 'DEFINER'] });
    const lines = text.toString('utf8').split('\n');
    const inserts = lines.map((l, i) => (l.startsWith('INSERT INTO') ? i : -1)).filter((i) => i >= 0);
    const at = inserts[Math.floor(inserts.length / 2)]; // 0-based: the broken statement goes before this INSERT
    lines.splice(at, 0, 'INSERTT INTO broken_halfway VALUES (1);');
    write('broken.mysql.sql.gz', gzipSync(lines.join('\n')), { kind: 'mysql', error_line: at + 1, error: 'You have an error in your SQL syntax' });
    write('two-databases.mysql.sql.gz', gzipSync(dump(['--databases', 'shop', 'shop_archive'])), { kind: 'mysql', error: 'several databases' });
  } finally {
    await stop(server, 'SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}

function write(name, bytes, meta) {
  writeFileSync(path.join(outDir, name), bytes);
  manifest.files[name] = meta;
  console.error(`wrote ${path.relative(root, path.join(outDir, name))} (${bytes.length} bytes)`);
}

mkdirSync(outDir, { recursive: true });
await postgresFixtures();
await mariadbFixtures();
writeFileSync(path.join(outDir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
console.error('wrote manifest.json');
