// What a user at a real terminal sees (issue 13): the CLI in a pty (`script`)
// against the emulator, at 60 and 200 columns.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { withEmulatorCli } from '../helpers/emulator.js';
import { inPty, screenLines } from '../helpers/pty.js';

const { env } = withEmulatorCli();

describe('lists say when there is more', () => {
  it('one page of several ends with a line on stderr saying how to see the rest', async () => {
    const r = await inPty(['servers', 'list'], env(), { stty: 'cols 120 rows 50' });
    expect(r.code).toBe(0);
    const lines = screenLines(r.output).filter(Boolean);
    expect(lines[lines.length - 1]).toBe('Showing 15 of 20: --all for every page, --page 2 for the next.');
    const second = await inPty(['servers', 'list', '--page-size', '15', '--page', '2'], env(), { stty: 'cols 120 rows 50' });
    expect(second.output).not.toContain('Showing');
    const all = await inPty(['servers', 'list', '--all', '-q'], env(), { stty: 'cols 120 rows 50' });
    expect(all.output).not.toContain('Showing');
    const middle = await inPty(['servers', 'list', '--page-size', '15', '--page', '1', '-q'], env(), { stty: 'cols 120 rows 50' });
    expect(screenLines(middle.output).filter(Boolean).pop()).toBe('Showing 15 of 20: --all for every page, --page 2 for the next.');
  });

  it('nothing changes when piped', async () => {
    const r = await runCli(['servers', 'list'], { env: env() });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(15);
  });
});

describe('download to stdout in a terminal', () => {
  it('streams to the pipe and shows progress on the terminal (stderr)', async () => {
    const whole = (await runCli(['jobs', 'backup', 'download', 'shop mysql', '--latest', '-o', '-'], { env: env() })).stdoutBytes!;
    const r = await inPty(['jobs', 'backup', 'download', 'shop mysql', '--latest', '--output', '-'], env(), { stty: 'cols 100 rows 40', pipe: 'sha256sum' });
    expect(r.code).toBe(0);
    expect(r.output).toContain(`${createHash('sha256').update(whole).digest('hex')}  -`);
    expect(r.output).toMatch(/\[#+-*\] 100%  1\/1 files/);
    expect(r.output).toMatch(/Wrote shop-mysql-[^ ]+\.sql\.gz \(\d+ bytes\) of backup [0-9a-f-]{36} to stdout\./);
  });
});
