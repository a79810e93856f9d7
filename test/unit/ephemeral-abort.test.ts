// The ephemeral server's start with a signal that Ctrl-C aborted before it: it rejects with "aborted", and
// the process and its folder are gone. (The check for an already-aborted signal first ran before the
// start's own listeners were made, and threw "Cannot access 'onExit' before initialization" instead.)
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startServer } from '../../src/restore/servers/ephemeral.js';

describe('startServer with an aborted signal', () => {
  it('rejects with "aborted", and the process and its folder are gone', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'backupctl-ephemeral-'));
    const ac = new AbortController();
    ac.abort();
    const err = await startServer({ cmd: process.execPath, args: ['-e', 'setTimeout(() => {}, 30000)'], dir, account: null, ready: /never/, stopSignal: 'SIGTERM', quitSignal: 'SIGKILL', timeoutMs: 20_000, signal: ac.signal, name: 'a stand-in server' }).then(
      () => null,
      (e: Error) => e,
    );
    expect(err?.message).toBe('aborted');
    expect(existsSync(dir)).toBe(false);
  });
});
