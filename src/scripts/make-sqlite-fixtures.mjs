#!/usr/bin/env node
// Makes restore-test's SQLite fixtures (issue 43) with the REAL sqlite3 tool,
// into src/emulator/fixtures/restore/ beside the PostgreSQL and MariaDB ones:
//   shop.sqlite           a small shop database (customers, products with BLOBs, orders, order_items, an
//                         AUTOINCREMENT table, a view, a trigger, an index; quotes, newlines and NULLs in the data)
//   shop.sqlite.sql.gz    `sqlite3 shop.sqlite .dump`, gzipped
//   damaged.sqlite        shop.sqlite with one leaf page of order_items given an invalid page type:
//                         it opens, and PRAGMA integrity_check says what is wrong
// and their entries in manifest.json (the others' are kept): each file's kind, tables with their rows.
// The data is the same on every run (a fixed pseudo-random sequence), so the bytes are too.
// Run: node src/scripts/make-sqlite-fixtures.mjs   (needs sqlite3)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const outDir = path.join(root, 'src/emulator/fixtures/restore');
const work = mkdtempSync(path.join(tmpdir(), 'sqlite-fixtures-'));

function sqlite(db, input, args = []) {
  const r = spawnSync('sqlite3', ['-bail', ...args, db], { input, maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`sqlite3 ${args.join(' ')}: ${r.stderr.toString()}`);
  return r.stdout;
}

let seed = 43;
const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
const pick = (n) => next() % n;
const q = (s) => `'${s.replaceAll("'", "''")}'`;

const TABLES = { customers: 60, products: 40, orders: 150, order_items: 300 };
const lines = [
  'PRAGMA page_size = 1024;',
  'CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT UNIQUE, note TEXT);',
  'CREATE TABLE products (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL, price REAL, image BLOB);',
  'CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers(id), placed_at TEXT, total REAL);',
  'CREATE TABLE order_items (order_id INTEGER REFERENCES orders(id), product_id INTEGER REFERENCES products(id), qty INTEGER, PRIMARY KEY (order_id, product_id)) WITHOUT ROWID;',
  'CREATE TABLE audit (at TEXT, what TEXT);',
  'CREATE INDEX orders_by_customer ON orders(customer_id);',
  'CREATE VIEW order_totals AS SELECT o.id, c.name, o.total FROM orders o JOIN customers c ON c.id = o.customer_id;',
  'BEGIN;',
];
for (let i = 1; i <= TABLES.customers; i++) {
  const note = i % 7 === 0 ? 'NULL' : q(`line one\nit's "quoted"\ttabbed #${i}`);
  lines.push(`INSERT INTO customers VALUES (${i}, ${q(`Customer ${i} O'Neil`)}, ${q(`c${i}@example.test`)}, ${note});`);
}
for (let i = 1; i <= TABLES.products; i++) {
  const blob = Array.from({ length: 16 }, () => pick(256).toString(16).padStart(2, '0')).join('');
  lines.push(`INSERT INTO products (name, price, image) VALUES (${q(`Product ${i}`)}, ${(pick(10000) / 100).toFixed(2)}, ${i % 5 === 0 ? 'NULL' : `X'${blob}'`});`);
}
for (let i = 1; i <= TABLES.orders; i++) {
  lines.push(`INSERT INTO orders VALUES (${i}, ${1 + pick(TABLES.customers)}, '2026-0${1 + (i % 9)}-1${i % 10}T12:00:00Z', ${(pick(100000) / 100).toFixed(2)});`);
}
for (let i = 0; i < TABLES.order_items; i++) {
  lines.push(`INSERT INTO order_items VALUES (${1 + (i % TABLES.orders)}, ${1 + ((i * 7 + Math.floor(i / TABLES.orders)) % TABLES.products)}, ${1 + pick(5)});`);
}
lines.push('COMMIT;');
// After the data: the trigger fires on new orders only, so the dump's audit table stays empty.
lines.push("CREATE TRIGGER orders_audit AFTER INSERT ON orders BEGIN INSERT INTO audit VALUES (datetime('now'), 'order ' || NEW.id); END;");

const shop = path.join(work, 'shop.sqlite');
sqlite(shop, lines.join('\n'));
const dump = sqlite(shop, '', ['-cmd', '.dump']);
const tables = { ...TABLES, audit: 0 };
for (const [t, n] of Object.entries(tables)) {
  const got = Number(sqlite(shop, `SELECT count(*) FROM ${t};`).toString().trim());
  if (got !== n) throw new Error(`${t}: ${got} rows, expected ${n}`);
}

// damaged.sqlite: the first leaf page under order_items' root gets page type 0 (none is valid).
const bytes = Buffer.from(readFileSync(shop));
const pageSize = bytes.readUInt16BE(16);
const rootPage = Number(sqlite(shop, "SELECT rootpage FROM sqlite_master WHERE name = 'order_items';").toString().trim());
const rootAt = (rootPage - 1) * pageSize;
if (bytes[rootAt] !== 0x02) throw new Error(`order_items' root page ${rootPage} is not an interior index page (${bytes[rootAt]})`);
const firstCell = bytes.readUInt16BE(rootAt + 12);
const leaf = bytes.readUInt32BE(rootAt + firstCell);
bytes[(leaf - 1) * pageSize] = 0x00;
const damaged = path.join(work, 'damaged.sqlite');
writeFileSync(damaged, bytes);
const check = spawnSync('sqlite3', [damaged, 'PRAGMA integrity_check;'], { encoding: 'utf8' });
const said = `${check.stdout}${check.stderr}`.trim();
if (said === 'ok') throw new Error('damaged.sqlite passes integrity_check');

writeFileSync(path.join(outDir, 'shop.sqlite'), readFileSync(shop));
writeFileSync(path.join(outDir, 'shop.sqlite.sql.gz'), gzipSync(dump, { level: 9 }));
writeFileSync(path.join(outDir, 'damaged.sqlite'), bytes);
const manifestPath = path.join(outDir, 'manifest.json');
const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
manifest.files['shop.sqlite'] = { kind: 'sqlite', tables, generated_by: 'src/scripts/make-sqlite-fixtures.mjs' };
manifest.files['shop.sqlite.sql.gz'] = { kind: 'sqlite-dump', tables, generated_by: 'src/scripts/make-sqlite-fixtures.mjs' };
manifest.files['damaged.sqlite'] = { kind: 'sqlite', error: said.split('\n')[0], generated_by: 'src/scripts/make-sqlite-fixtures.mjs' };
writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
console.error(`wrote shop.sqlite (${readFileSync(shop).length} bytes), shop.sqlite.sql.gz, damaged.sqlite (${said.split('\n')[0]}), manifest.json`);
rmSync(work, { recursive: true, force: true });
