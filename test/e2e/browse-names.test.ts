// Issue 45.6: an archive's member names are the archive's, not ours. ls and
// find show them without escape sequences (OSC 52, CSI), BEL, or the CR/LF
// that would forge a line: on a real terminal (util-linux `script`), in the
// table, --long and tsv; --json keeps them whole (escaped). A 100 kB path is
// not echoed whole in an error. The listing is put in the catalog the way
// scan leaves it, so no archive needs hostile names of its own.
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { emulatorSession } from '../helpers/emulator.js';
import { inPty, screenLines } from '../helpers/pty.js';
import { Catalog } from '../../src/state/catalog.js';
import { ListingWriter } from '../../src/catalog/listing.js';

type Json = any;
const session = emulatorSession({ seed: 'demo', now: Date.now(), timeoutMs: 60_000 });
const { emu, env, cli } = session;
const JOB = 'api postgres';

const HOSTILE = [
  'docs/clip\u001b]52;c;cm0gLXJmIH4K\u0007.txt',
  'docs/clear\u001b[2J\u001b[H.txt',
  'docs/bell\u0007\u0007.txt',
  'docs/cr\rFORGED-CR line.txt',
  'docs/lf\nFORGED-LF line.txt',
  'docs/tab\tin name.txt',
];
let backupId: string;

beforeAll(async () => {
  const backups = (await session.backupsOf(JOB, 'sort=-created_at')).filter((b) => b.status === 'completed');
  backupId = backups[0]!.id;
  const catalog = new Catalog(path.join(session.state, 'backupctl'), emu.url, emu.token);
  const writer = new ListingWriter(catalog.listingPath(backupId, 0));
  await writer.add({ path: 'docs', type: 'd', size: 0, mode: 0o755, uid: 0, gid: 0, mtime: 0, crc: '' });
  for (const p of HOSTILE) await writer.add({ path: p, type: 'f', size: 5, mode: 0o644, uid: 0, gid: 0, mtime: 0, crc: '00000000' });
  await writer.add({ path: 'docs/link', type: 'l', size: 0, mode: 0o777, uid: 0, gid: 0, mtime: 0, crc: '', link: '\u001b]52;c;eA==\u0007target' });
  await writer.finish();
  await catalog.save({
    version: 1,
    backup_id: backupId,
    job_id: null,
    created_at: backups[0]!.created_at,
    recorded_at: new Date().toISOString(),
    recorded_by: 'scan',
    read_verdict: 'passed',
    size_bytes: 1,
    duration_s: null,
    files: [{ name: 'hostile.tar', bytes: 1, gzip: false, kind: 'tar', listing: '0.ndjson.gz' }],
  });
});

const forged = (lines: string[]) => lines.filter((l) => /^\s*FORGED/.test(l));

describe('ls and find print member names made safe', () => {
  it('on a terminal (ls, ls --long, find): no escape sequence, no BEL, no forged line', async () => {
    for (const args of [['ls', JOB, backupId], ['ls', JOB, backupId, '--long'], ['find', JOB, 'docs/**', '--since', '30d']]) {
      const r = await inPty(args, { ...env(), TERM: 'dumb', NO_COLOR: '1' }, { stty: 'cols 200 rows 50', timeoutMs: 40_000 });
      expect(r.code, `${args.join(' ')}: ${r.output}`).toBe(0);
      expect(r.output).toContain('FORGED-CR line.txt');
      expect(r.output.includes('\u001b'), JSON.stringify(r.output)).toBe(false);
      expect(r.output.includes('\u0007')).toBe(false);
      // A carriage return or line feed inside a name would start a line of its own ("\r\n" is the pty's line end).
      expect(r.output.replace(/\r\n/g, '\n').includes('\r')).toBe(false);
      expect(forged(screenLines(r.output))).toEqual([]);
    }
  }, 180_000);

  it('-o tsv: one line per entry, its fields whole, no control byte', async () => {
    for (const args of [['ls', JOB, backupId, '-o', 'tsv'], ['find', JOB, 'docs/*', '--since', '30d', '-o', 'tsv']]) {
      const r = await cli(args);
      expect(r.code, r.stderr).toBe(0);
      const lines = r.stdout.trimEnd().split('\n');
      expect(lines.length).toBe(args[0] === 'ls' ? HOSTILE.length + 2 : HOSTILE.length + 1);
      const fields = args[0] === 'ls' ? 8 : 10;
      for (const l of lines) expect(l.split('\t'), JSON.stringify(l)).toHaveLength(fields);
      expect(/[\u0000-\u0008\u000b-\u001f\u007f]/.test(r.stdout)).toBe(false);
      expect(r.stdout).toContain('docs/clip.txt\t');
    }
  }, 120_000);

  it('--json keeps the names as the archive has them', async () => {
    const r = await cli(['ls', JOB, backupId, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const paths = (JSON.parse(r.stdout) as Json[]).map((e) => e.path);
    for (const p of HOSTILE) expect(paths).toContain(p);
  });

  it('a 100 kB path is not echoed whole in the error', async () => {
    const long = `docs/${'x'.repeat(100_000)}\u001b]52;c;eA==\u0007`;
    const r = await cli(['ls', JOB, backupId, long]);
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/no such path in backup/);
    expect(r.stderr.length).toBeLessThan(2_000);
    expect(r.stderr.includes('\u001b')).toBe(false);
  });
});
