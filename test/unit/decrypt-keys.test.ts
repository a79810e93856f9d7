// Issue 45's planted-bug escapes around decryption: a traditional PEM key
// ("Proc-Type: 4,ENCRYPTED", PKCS#1) with a passphrase opens, as a PKCS#8 one
// does; an encrypted empty file (32 bytes stored: "Salted__", the salt, one CBC
// block of padding alone) decrypts; and decryptorFor waits for its own check of
// the flags, so a key file that is gone is exit 2 naming the flag, never exit 15
// with an unhandled rejection beside it.
import { createPrivateKey } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import type { Context } from '../../src/contract/context.js';
import { sealBytes, sealSecret } from '../../src/emulator/demo-key.js';
import { decryptorFor } from '../../src/jobs/decrypt.js';
import type { Decryptor } from '../../src/pipeline/decrypt.js';
import type { ByteSink } from '../../src/pipeline/types.js';

const DIR = path.resolve(import.meta.dirname, '../../src/emulator/fixtures/demo-key');
const demoKey = createPrivateKey(readFileSync(path.join(DIR, 'demo-private.pem')));
const work = mkdtempSync(path.join(tmpdir(), 'backupctl-decrypt-keys-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The context decryptorFor reads when the flags are given (no config is opened). */
const ctx = { env: {}, io: { stdinIsTTY: false } } as unknown as Context;
const job = { id: 'j1', name: 'shop mysql' };

async function decrypt(d: Decryptor, encryptionKey: string, bytes: Buffer): Promise<Buffer> {
  const out: Buffer[] = [];
  const sink: ByteSink = { write: async (c) => void out.push(Buffer.from(c)), restart: () => void (out.length = 0) };
  const stage = d.open({ backupId: 'b1', encryptionKey, fileName: 'f' }, sink, new AbortController().signal);
  await stage.write(bytes);
  await stage.end();
  return Buffer.concat(out);
}

describe('keys', () => {
  it('a traditional "Proc-Type: 4,ENCRYPTED" PKCS#1 key with --private-key-pass-file opens and decrypts', async () => {
    const passphrase = 'pkcs1-pass-7c1e';
    const pem = demoKey.export({ type: 'pkcs1', format: 'pem', cipher: 'aes-256-cbc', passphrase }).toString();
    expect(pem).toMatch(/^-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\n/);
    const keyFile = path.join(work, 'pkcs1.pem');
    const passFile = path.join(work, 'pass');
    writeFileSync(keyFile, pem);
    writeFileSync(passFile, `${passphrase}\n`);
    const d = await decryptorFor(ctx, { private_key: keyFile, private_key_pass_file: passFile }, job);
    expect(d?.label).toBe('--private-key');
    const plain = gzipSync(Buffer.from('-- MySQL dump 10.13\n'.repeat(50)));
    const { encryption_key, secret } = sealSecret(Buffer.alloc(48, 4));
    expect(await decrypt(d!, encryption_key, sealBytes(plain, secret))).toEqual(plain);
  });

  it('a key file removed after the check is exit 2 naming --private-key (decryptorFor awaits its check)', async () => {
    const rejections: unknown[] = [];
    const onRejection = (err: unknown) => rejections.push(err);
    process.on('unhandledRejection', onRejection);
    try {
      const err = await decryptorFor(ctx, { private_key: path.join(work, 'gone.pem') }, job).then(
        () => undefined,
        (e: { exitCode?: number; message: string }) => e,
      );
      expect(err?.exitCode).toBe(2);
      expect(err?.message).toMatch(/invalid value ".*gone\.pem" for --private-key: no such file/);
      await new Promise((r) => setTimeout(r, 50));
      expect(rejections).toEqual([]);
    } finally {
      process.off('unhandledRejection', onRejection);
    }
  });
});

describe('an encrypted empty file', () => {
  for (const first of [0, 1, 2]) {
    it(`32 bytes of CBC (variant ${first}) decrypt to nothing with --private-key`, async () => {
      const drawn = Buffer.alloc(48, 5);
      drawn[0] = first;
      const { encryption_key, secret } = sealSecret(drawn);
      const sealed = sealBytes(Buffer.alloc(0), secret);
      expect(sealed.length).toBe(32);
      const keyFile = path.join(work, 'plain.pem');
      writeFileSync(keyFile, demoKey.export({ type: 'pkcs8', format: 'pem' }));
      const d = await decryptorFor(ctx, { private_key: keyFile }, job);
      expect(await decrypt(d!, encryption_key, sealed)).toEqual(Buffer.alloc(0));
    });
  }
});

describe('the plaintext sniffer is the one of kinds.ts', () => {
  it('an old (v7) tar header without "ustar" is plaintext; an encryption header is not', async () => {
    const { looksLikePlaintext } = await import('../../src/pipeline/decrypt.js');
    const h = Buffer.alloc(1024);
    h.write('hello.txt', 0, 'latin1');
    h.write('0000644\0', 100, 'latin1');
    h.write('0000000\0', 108, 'latin1');
    h.write('0000000\0', 116, 'latin1');
    h.write('00000000005\0', 124, 'latin1');
    h.write('14000000000\0', 136, 'latin1');
    h.write('0', 156, 'latin1');
    h.fill(0x20, 148, 156);
    let sum = 0;
    for (let i = 0; i < 512; i++) sum += h[i]!;
    h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
    h.write('hello', 512, 'latin1');
    expect(looksLikePlaintext(h)).toBe(true);
    expect(looksLikePlaintext(Buffer.from('Salted__12345678' + 'x'.repeat(100)))).toBe(false);
    expect(looksLikePlaintext(Buffer.from('age-encryption.org/v1\n-> X25519 abc\n'))).toBe(false);
  });
});
