// The verify rows of `npm run bench` (issue 12): on loopback, `verify` of a
// 1 GiB .tar.gz reads at >= 80% of the speed at which `jobs backup download`
// writes it, and its peak RSS stays under 150 MB. The emulator makes the file
// while it sends it (--big-file), the same bytes for both commands; the two
// commands are alternated and compared by their median wall times.
// Alone: `npm run bench -- --only verify`.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const GIB = 1024;

/**
 * @param {object} o
 * @param {(measure: string, value: string, target: string, pass: boolean | null) => void} o.row
 * @param {Function} o.runOnce  bench.mjs's runOnce(cmd, argv, env, {rss})
 * @param {Function} o.startEmulator  bench.mjs's startEmulator(extraArgs)
 * @param {Record<string, string>} o.env  the measured processes' environment
 * @param {string} o.bin  bin/backupctl.cjs
 * @param {number} o.runs  rounds (each reads 1 GiB twice)
 */
export async function verifyRows({ row, runOnce, startEmulator, env, bin, runs = 3 }) {
  const emu = await startEmulator(['--seed', 'empty', '--big-file', String(GIB)]);
  const scratch = mkdtempSync(path.join(tmpdir(), 'backupctl-bench-verify-'));
  const dir = path.join(scratch, 'download');
  const runEnv = { ...env, BACKUPCTL_BASE_URL: emu.url, BACKUPCTL_TOKEN: emu.token, XDG_STATE_HOME: path.join(scratch, 'state') };
  const node = process.execPath;
  const download = [bin, 'jobs', 'backup', 'download', 'big file', '--latest', '--dir', dir, '--force', '-q'];
  const verify = [bin, 'verify', 'big file', '--latest', '-o', 'json'];
  // The same verify without the catalog's fingerprints (issue 33 §1: they may cost at most 5%).
  const bare = [bin, 'verify', 'big file', '--latest', '-o', 'json', '--skip-catalog'];
  const times = { download: [], verify: [], bare: [] };
  const rss = { download: [], verify: [], bare: [] };
  try {
    process.stderr.write(`verify: ${runs} rounds of download and verify of a ${GIB} MiB .tar.gz, alternated (after one warm-up)...\n`);
    for (let i = 0; i <= runs; i++) {
      for (const [name, argv] of [['download', download], ['verify', verify], ['bare', bare]]) {
        const r = await runOnce(node, argv, runEnv, { rss: true });
        if (name === 'download') {
          // Written whole, then removed, so the disk holds one copy at most.
          const files = readdirSync(dir);
          if (files.length !== 1) throw new Error(`download wrote ${files.length} files`);
          rmSync(dir, { recursive: true, force: true });
        }
        if (i === 0) continue;
        times[name].push(r.ms / 1000);
        rss[name].push(r.peakRssMb);
      }
    }
  } finally {
    emu.child.kill('SIGTERM');
    rmSync(scratch, { recursive: true, force: true });
  }
  const median = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    const m = s.length >> 1;
    return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
  };
  const mbps = (name) => GIB / median(times[name]);
  const ratio = mbps('verify') / mbps('download');
  const peak = Math.max(...rss.verify);
  row(
    `\`verify\` of a ${GIB} MiB .tar.gz on loopback vs \`jobs backup download\` writing it (MiB/s, medians of ${runs})`,
    `${(ratio * 100).toFixed(0)}% (${mbps('verify').toFixed(0)} vs ${mbps('download').toFixed(0)} MiB/s)`,
    '>= 80%',
    ratio >= 0.8,
  );
  row('  the same: verify peak RSS', `${peak.toFixed(0)} MB`, '< 150 MB', peak < 150);
  const cost = median(times.verify) / median(times.bare);
  row(
    '  the same: verify with the catalog\'s fingerprints vs --skip-catalog (wall time, medians)',
    `${cost.toFixed(3)}x (${median(times.verify).toFixed(2)} s vs ${median(times.bare).toFixed(2)} s)`,
    '<= 1.05x',
    cost <= 1.05,
  );
  row('  the same: download peak RSS (not a target)', `${Math.max(...rss.download).toFixed(0)} MB`, '(info)', null);
}
