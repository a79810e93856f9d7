// Issue 45.7 for the engines beside the PostgreSQL server (hostile-pg-leftovers.test.ts has that one): a dump that
// restores a table, drops it and puts a view of the same name in its place, showing constant rows, is never
// "restored, 3 rows". PGlite and MariaDB count a table only while it is a base table still.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { DispatchSink } from '../../src/restore/dispatch.js';
import { createSqlRestoreSink } from '../../src/restore/sql/sink.js';
import { startHostileMariadb, type HostileMariadb } from '../helpers/mariadb.js';
import { feed, options } from '../helpers/restore.js';

const T = 180_000;
const PG_HEAD = "--\n-- PostgreSQL database dump\n--\n\nSET statement_timeout = 0;\nSET client_encoding = 'UTF8';\n\n";
const MY_HEAD = '/*M!999999\\- enable the sandbox mode */\n-- MariaDB dump 10.19  Distrib 10.11.19-MariaDB\n/*!40101 SET NAMES utf8mb4 */;\n';

describe('PGlite', () => {
  test(
    'a table replaced by a view of constant rows is not counted as the rows the dump held',
    async () => {
      const r = await feed(
        new DispatchSink({ ...options({ engine: 'embedded' }), encrypted: false }),
        Buffer.from(
          `${PG_HEAD}CREATE TABLE public.keep (id int);\nINSERT INTO public.keep VALUES (1);\nCREATE TABLE public.t (id int);\nINSERT INTO public.t VALUES (1), (2), (3);\n` +
            `DO $$BEGIN EXECUTE 'DROP TABLE public.t'; EXECUTE 'CREATE VIEW public.t AS SELECT generate_series(1, 3) AS id'; END$$;\n`,
        ),
      );
      expect(r.tables).toEqual([
        { table: 'public.keep', expected: 1, restored: 1 },
        { table: 'public.t', expected: 3, restored: null },
      ]);
      expect(r.verdict).toBe('failed');
    },
    T,
  );
});

describe('MariaDB --into', () => {
  let my: HostileMariadb;
  beforeAll(async () => {
    my = await startHostileMariadb('Tester-pw-1');
  }, T);
  afterAll(async () => {
    await my?.stop();
  });

  test(
    'a table replaced by a view of constant rows is not counted as the rows the dump held, and nothing is left',
    async () => {
      const r = await feed(
        createSqlRestoreSink(options({ engine: 'server', into: my.bossUrl }), 'mysql'),
        Buffer.from(
          `${MY_HEAD}CREATE TABLE \`keep\` (\`id\` int);\nINSERT INTO \`keep\` VALUES (1);\nCREATE TABLE \`t\` (\`id\` int);\nINSERT INTO \`t\` VALUES (1),(2),(3);\n` +
            // The drop and the view hidden from the reader in prepared statements, as a tampered dump would.
            "SET @d = 'DROP TABLE `t`';\nPREPARE d FROM @d;\nEXECUTE d;\n" +
            "SET @v = 'CREATE VIEW `t` AS SELECT 1 AS id UNION ALL SELECT 2 UNION ALL SELECT 3';\nPREPARE v FROM @v;\nEXECUTE v;\n",
        ),
      );
      expect(r.tables.map((t) => [t.table.replace(/`/g, ''), t.expected, t.restored])).toEqual([
        ['keep', 1, 1],
        ['t', 3, null],
      ]);
      expect(r.verdict).toBe('failed');
      expect(my.schemas('backupctl\\_restore\\_%')).toEqual([]);
      expect(my.users('backupctl\\_r\\_%')).toEqual([]);
    },
    T,
  );
});
