// `report -o html` in a real browser: the system's headless Chromium (Debian
// package `chromium`; .ci/run installs it) opens the file the built CLI wrote,
// and the test checks that nothing was fetched, nothing was logged as an
// error, and every chart has a size on screen and on paper; then it renders
// a PNG of the whole page (kept in the temporary folder named below, to look at).
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { withEmulator } from '../helpers/emulator.js';

const CHROMIUM = process.env.BACKUPCTL_CHROMIUM ?? '/usr/bin/chromium';
/** Where the PNG and PDF stay after the run. */
export const ARTIFACTS = path.join(tmpdir(), 'backupctl-report-browser');

const emu = withEmulator();
let cfg: ReturnType<typeof tempConfigDir>;
let work: string;
beforeAll(() => {
  cfg = tempConfigDir();
  work = mkdtempSync(path.join(tmpdir(), 'backupctl-report-html-'));
  mkdirSync(ARTIFACTS, { recursive: true });
});
afterAll(() => {
  cfg.cleanup();
  rmSync(work, { recursive: true, force: true });
});

interface ChartBox {
  id: string;
  width: number;
  height: number;
}

describe('report -o html in headless Chromium', () => {
  it('loads with no console error and no request, every chart has a size on screen and in print, and it renders to a PNG', { timeout: 90_000 }, async () => {
    expect(existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install chromium (the Debian package), or set BACKUPCTL_CHROMIUM`).toBe(true);
    const file = path.join(work, 'report.html');
    // The restore testing evidence (issue 44) as well: a plan, one test of it proven by a verify (a row with a whole backup id).
    const plan = path.join(work, 'plan.yaml');
    writeFileSync(plan, 'version: 1\nassurance:\n  "api postgres":\n    verify_every: 1d\n  "shop mysql":\n    verify_every: 1d\n    restore_test_every: 7d\n    rto: 15m\n    validations:\n      - table_exists: orders\n');
    const verified = await runCli(['verify', 'api postgres', '--latest', '-q'], { env: { BACKUPCTL_BASE_URL: emu.url, BACKUPCTL_TOKEN: emu.token, BACKUPCTL_CONFIG_DIR: cfg.dir } });
    expect(verified.code, verified.stderr).toBe(0);
    const r = await runCli(['report', '--since', '10d', '--assurance', plan, '-o', 'html', '--output-file', file], {
      env: { BACKUPCTL_BASE_URL: emu.url, BACKUPCTL_TOKEN: emu.token, BACKUPCTL_CONFIG_DIR: cfg.dir },
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const json = await runCli(['report', '--since', '10d', '--json'], { env: { BACKUPCTL_BASE_URL: emu.url, BACKUPCTL_TOKEN: emu.token, BACKUPCTL_CONFIG_DIR: cfg.dir } });
    const doc = JSON.parse(json.stdout) as { jobs: unknown[]; droplets: unknown[]; volumes: unknown[]; resources: unknown[] };

    const { chromium } = await import('playwright-core');
    const profile = mkdtempSync(path.join(tmpdir(), 'backupctl-chromium-profile-'));
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
      viewport: { width: 1280, height: 900 },
      offline: true,
      // Chromium hangs at start under libfaketime (a suite run under faketime to check the hour does not
      // matter); it only renders the file the CLI wrote above, on the faked clock, so it runs on the real one.
      env: Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined && !/^(LD_PRELOAD$|FAKETIME)/.test(e[0]))),
    });
    try {
      const url = `file://${file}`;
      const requests: string[] = [];
      const problems: string[] = [];
      // Anything but the page itself is recorded and refused.
      await context.route('**/*', (route) => {
        const target = route.request().url();
        if (target === url) return route.continue();
        requests.push(target);
        return route.abort();
      });
      const page = context.pages()[0] ?? (await context.newPage());
      page.on('request', (req) => {
        if (req.url() !== url) requests.push(req.url());
      });
      page.on('console', (msg) => {
        if (msg.type() === 'error' || msg.type() === 'warning') problems.push(`${msg.type()}: ${msg.text()}`);
      });
      page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
      await page.goto(url, { waitUntil: 'load' });

      const boxes = (): Promise<ChartBox[]> =>
        page.$$eval('svg.chart', (nodes) =>
          nodes.map((n) => {
            const b = n.getBoundingClientRect();
            return { id: n.id, width: b.width, height: b.height };
          }),
        );
      const screen = await boxes();
      // Per section: a day header, a strip per entry, the success bars, a duration chart per entry.
      const entries = [doc.jobs, doc.droplets, doc.volumes, doc.resources].filter((s) => s.length);
      expect(screen).toHaveLength(entries.reduce((n, s) => n + 2 + 2 * s.length, 0));
      expect(screen.filter((b) => !(b.width > 0 && b.height > 0))).toEqual([]);
      expect(await page.locator('#summary .card').count()).toBeGreaterThanOrEqual(6);
      // The evidence: one row per test of the plans, api postgres's verify covered by the verify above.
      expect(await page.locator('#assurance tbody tr').count()).toBe(3);
      expect(await page.locator('#assurance tr[data-job="api postgres"][data-covered="true"]').count()).toBe(1);
      await page.screenshot({ path: path.join(ARTIFACTS, 'report.png'), fullPage: true });

      // Issue 25 §8: the date labels over the calendar never overlap (the last two did: "11-25" on "11-26").
      const labelBoxes = await page.$$eval('svg[id$="-days"]', (svgs) =>
        svgs.map((svg) => [...svg.querySelectorAll('text')].map((t) => ({ left: t.getBoundingClientRect().left, right: t.getBoundingClientRect().right }))),
      );
      for (const boxes of labelBoxes) for (let i = 1; i < boxes.length; i++) expect(boxes[i]!.left, 'date labels overlap').toBeGreaterThanOrEqual(boxes[i - 1]!.right);
      // Names that differ only at their end stay apart: every calendar row shows a name of its own.
      const names = await page.$$eval('.strips .name', (nodes) => nodes.map((n) => (n as unknown as { innerText: string }).innerText));
      expect(new Set(names).size).toBe(names.length);

      // 420 px, a phone: the calendars keep cells people can read (16 px, as on a desk) and scroll sideways.
      await page.setViewportSize({ width: 420, height: 900 });
      const narrow = await page.$$eval('svg.chart[id^="calendar-"]', (nodes) =>
        nodes.map((n) => ({ id: n.id, shown: n.getBoundingClientRect().width, drawn: Number(n.getAttribute('width')) })),
      );
      expect(narrow.length).toBeGreaterThan(0);
      expect(narrow.filter((c) => Math.abs(c.shown - c.drawn) > 1)).toEqual([]);
      // The page itself does not scroll sideways: only the calendars and tables do, inside the page.
      expect(await page.$eval('html', (n) => n.scrollWidth)).toBeLessThanOrEqual(420);
      const nameWidths = await page.$$eval('.strips .name', (nodes) => nodes.map((n) => n.getBoundingClientRect().width));
      expect(nameWidths.every((w) => w >= 100)).toBe(true);
      await page.screenshot({ path: path.join(ARTIFACTS, 'report-420.png'), fullPage: true });
      await page.setViewportSize({ width: 1280, height: 900 });

      await page.emulateMedia({ media: 'print' });
      const printed = await boxes();
      expect(printed).toHaveLength(screen.length);
      expect(printed.filter((b) => !(b.width > 0 && b.height > 0))).toEqual([]);
      // On A4 paper (210 mm less the 12 mm margins of @page: 703 CSS px) nothing is wider than the page:
      // a column cut off at the edge is lost on paper (the tables were 1040 to 1120 px wide).
      await page.setViewportSize({ width: 703, height: 900 });
      const placed = await page.$$eval('table, svg.chart, .strips, .cards, .legend', (nodes) =>
        nodes.map((n) => ({
          what: n.id || `${n.tagName.toLowerCase()} in ${n.closest('section')?.id ?? 'the page'}`,
          right: Math.round(n.getBoundingClientRect().right),
          page: n.ownerDocument.documentElement.clientWidth,
        })),
      );
      expect(placed.length).toBeGreaterThan(screen.length);
      expect(placed.filter((n) => n.right > n.page)).toEqual([]);
      const pdf = await page.pdf({ path: path.join(ARTIFACTS, 'report.pdf'), format: 'A4', printBackground: true });
      expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');

      expect(problems).toEqual([]);
      expect(requests).toEqual([]);
    } finally {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    }

    const png = readFileSync(path.join(ARTIFACTS, 'report.png'));
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    // IHDR: the width and height of the whole page.
    expect(png.readUInt32BE(16)).toBe(1280);
    expect(png.readUInt32BE(20)).toBeGreaterThan(900);
  });
});
