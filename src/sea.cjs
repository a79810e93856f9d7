'use strict';
// The single executable's main script (src/scripts/sea.mjs bundles it with
// boot.cjs): the CLI from the blob's assets instead of dist/. Started by
// itself as restore-test's PGlite child (BACKUPCTL_SEA_CHILD=pglite, with an
// IPC channel: src/restore/sql/pglite.ts), it serves PGlite instead: in a
// single executable, process.execPath is this program, not a node that
// would run `-e`.
const main = require('./boot.cjs').loadFromSea().exports;
if (process.env.BACKUPCTL_SEA_CHILD === 'pglite' && typeof process.send === 'function') {
  main.seaChild().catch((e) => {
    process.stderr.write(`PGlite child: ${e && e.message ? e.message : String(e)}\n`);
    process.exit(70);
  });
} else main.cli();
