// The built-in recipe of --private-key (src/pipeline/decrypt.ts) against each
// variant of the scheme the emulator seals with (src/emulator/demo-key.ts):
// every one opens, a damaged key or foreign key is a DecryptError, and the
// demo key pair's two halves belong together.
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { DEMO_PUBLIC_KEY_PEM, sealBytes, sealSecret, type SealedSecret } from '../../src/emulator/demo-key.js';
import { DecryptError, looksLikePlaintext, privateKeyDecryptor } from '../../src/pipeline/decrypt.js';
import type { ByteSink } from '../../src/pipeline/types.js';

const DIR = path.resolve(import.meta.dirname, '../../src/emulator/fixtures/demo-key');
const key = createPrivateKey(readFileSync(path.join(DIR, 'demo-private.pem')));

async function open(encryptionKey: string, bytes: Buffer, chunk = 1000): Promise<Buffer> {
  const out: Buffer[] = [];
  const sink: ByteSink = { write: async (c) => void out.push(Buffer.from(c)), restart: () => void (out.length = 0) };
  const stage = privateKeyDecryptor(key).open({ backupId: 'b1', encryptionKey, fileName: 'f.sql.gz' }, sink, new AbortController().signal);
  for (let i = 0; i < bytes.length; i += chunk) await stage.write(bytes.subarray(i, i + chunk));
  await stage.end();
  return Buffer.concat(out);
}

describe('privateKeyDecryptor', () => {
  const plain = gzipSync(Buffer.from('-- MySQL dump 10.13\n'.repeat(500)));
  for (let first = 0; first < 4; first++) {
    it(`opens variant ${first} of the scheme`, async () => {
      const drawn = Buffer.alloc(48, 7);
      drawn[0] = first;
      const { encryption_key, secret } = sealSecret(drawn);
      expect(secret.variant).toBe(first as SealedSecret['variant']);
      expect(await open(encryption_key, sealBytes(plain, secret))).toEqual(plain);
      // In one chunk, and in chunks smaller than the head it sniffs.
      expect(await open(encryption_key, sealBytes(plain, secret), 1 << 20)).toEqual(plain);
      expect(await open(encryption_key, sealBytes(plain, secret), 7)).toEqual(plain);
    });
  }

  it('a file shorter than the head it sniffs (a checksum list of 195 to 780 bytes) opens in every variant: the CBC padding is no control byte', async () => {
    const line = `${'ab'.repeat(32)}  ./etc/app-0.tar\n`;
    for (let first = 0; first < 4; first++) {
      const drawn = Buffer.alloc(48, 3);
      drawn[0] = first;
      const { encryption_key, secret } = sealSecret(drawn);
      for (const lines of [2, 3, 5, 8, 12]) {
        const list = Buffer.from(line.repeat(lines));
        expect(await open(encryption_key, sealBytes(list, secret))).toEqual(list);
      }
    }
  });

  it('a key the seal was not made for, or a seal of another passphrase, is a DecryptError', async () => {
    const a = sealSecret(Buffer.alloc(48, 1));
    const b = sealSecret(Buffer.alloc(48, 2));
    await expect(open(b.encryption_key, sealBytes(plain, a.secret))).rejects.toBeInstanceOf(DecryptError);
    await expect(open(Buffer.alloc(512, 9).toString('base64'), sealBytes(plain, a.secret))).rejects.toThrow(/does not open the encryption_key/);
  });

  it('looksLikePlaintext: gzip, tar, SQL text yes; noise no', () => {
    expect(looksLikePlaintext(plain)).toBe(true);
    expect(looksLikePlaintext(Buffer.from('-- PostgreSQL database dump\n\nSET statement_timeout = 0;\n'))).toBe(true);
    expect(looksLikePlaintext(Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 256)))).toBe(false);
  });

  it('the demo key pair: src/emulator/demo-key.ts holds the public half of demo-private.pem', () => {
    const fromPrivate = createPublicKey(key).export({ type: 'spki', format: 'pem' }).toString().trim();
    expect(DEMO_PUBLIC_KEY_PEM.trim()).toBe(fromPrivate);
    expect(readFileSync(path.join(DIR, 'demo-public.pem'), 'utf8').trim()).toBe(fromPrivate);
  });
});
