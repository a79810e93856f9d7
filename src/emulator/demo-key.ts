// DEMO ONLY (src/emulator/fixtures/demo-key/README.md): the public half of the demo key pair, published
// with its private half in src/emulator/fixtures/demo-key/. The emulator seals the data key of its encrypted
// demo backups with it, the way the service seals them with a user's key (docs/verify.md "Encrypted backups").
// A unit test checks that this is the public half of demo-private.pem.
import { constants, createCipheriv, createHash, createPublicKey, pbkdf2Sync, publicEncrypt, type KeyObject } from 'node:crypto';
export const DEMO_PUBLIC_KEY_PEM = `-----BEGIN PUBLIC KEY-----
MIICIjANBgkqhkiG9w0BAQEFAAOCAg8AMIICCgKCAgEAqoP1FRm+SBuM49InVlIV
dxgUYdKXKDcGzr3l3Z5Vu8cQwqvyhfV9xlpE+dnVuyT3e0CGrYD1OChnYqIE7igB
vebk7Miwp/TbTOnVvs0/KtzO0lMvz1/qa+5723U6/PRSNersUaiOMNABaz+rzT9u
SHm7dlku92qWY6zXYxporsO5JUbEizTD47+J50BPI0aiqnc8cV4VFY2e6HLEseFp
iAMnBsZhFB1Zh6Fq5v0CjV6zM8OA15S3GOJwl522W8JUU60gn/u3J+kvcyEwH5kA
KYoS74JOljWPT4P9TqEjdR8F6/XcrnfDpFdqCLfJORh2MdOjO/2bUXvMnH3js2C5
11pTuXMbwcHSg3ek38OIu7gFaNBMq6ClaInvVvjH5CVrxmoJKIZYYk5syoLR38sq
jbQ7cmvYMLAtuPZPYrwD4cygNqkwPf4SiKBZum/TFc764we8TycC3qYrU0YJlvfm
a5JF+RpRva7gFCYbZmTbO91YhliBmxbWFNbuhdM/gIK94frlYwuqQYiXSoO4MQqQ
9aoTEviRhijDGXZT4DHxSmXFWwrJLM/LMzOZ+XgrNZ+zOtdHWZf7uc66J1xU2+IO
U4XTJvtcI25MPSqx/GtKl/X+tr9PYuNWjB1fJAkeDPMCQ1TSAzuzp+uHHZ56Qh4i
exW4B02GW8qKGWuDIzXF9p0CAwEAAQ==
-----END PUBLIC KEY-----`;

/**
 * How one backup was sealed: the passphrase (what the RSA key unwraps) and the
 * variant of the scheme. The variants differ the way OpenSSL versions and
 * scripts do (the parameters are not published): backupctl's --private-key
 * tries them all, and the emulator uses four so that a test proves it.
 */
export interface SealedSecret {
  passphrase: string;
  /** 0: PKCS#1 v1.5, EVP_BytesToKey SHA-256, CBC (OpenSSL 1.1+ `enc -aes-256-cbc`); 1: OAEP, a passphrase file with a newline, PBKDF2, CBC; 2: PKCS#1 v1.5, EVP_BytesToKey MD5, CBC (OpenSSL 1.0); 3: OAEP, PBKDF2, CTR. */
  variant: 0 | 1 | 2 | 3;
}

let publicKey: KeyObject | undefined;

/** Deterministic bytes from a seed (the padding of the RSA seal): the emulator's data is the same on every start. */
function expand(seed: Buffer, label: string, length: number): Buffer {
  const out: Buffer[] = [];
  for (let i = 0, n = 0; n < length; i++) {
    const block = createHash('sha256').update(label).update(seed).update(String(i)).digest();
    out.push(block);
    n += block.length;
  }
  return Buffer.concat(out).subarray(0, length);
}

function mgf1(seed: Buffer, length: number): Buffer {
  const out: Buffer[] = [];
  for (let i = 0, n = 0; n < length; i++) {
    const c = Buffer.alloc(4);
    c.writeUInt32BE(i);
    const block = createHash('sha1').update(seed).update(c).digest();
    out.push(block);
    n += block.length;
  }
  return Buffer.concat(out).subarray(0, length);
}

/** RSA with PKCS#1 v1.5 (type 2) or OAEP (SHA-1) padding made by hand from `seed`, so the same seal on every start. */
function rsaSeal(message: Buffer, oaep: boolean, seed: Buffer): Buffer {
  publicKey ??= createPublicKey(DEMO_PUBLIC_KEY_PEM);
  const k = 512;
  let em: Buffer;
  if (oaep) {
    const hLen = 20;
    const db = Buffer.alloc(k - hLen - 1);
    createHash('sha1').digest().copy(db, 0);
    db[db.length - message.length - 1] = 0x01;
    message.copy(db, db.length - message.length);
    const s = expand(seed, 'oaep', hLen);
    const dbMask = mgf1(s, db.length);
    const maskedDb = Buffer.from(db.map((b, i) => b ^ dbMask[i]!));
    const seedMask = mgf1(maskedDb, hLen);
    const maskedSeed = Buffer.from(s.map((b, i) => b ^ seedMask[i]!));
    em = Buffer.concat([Buffer.from([0]), maskedSeed, maskedDb]);
  } else {
    const ps = Buffer.from(expand(seed, 'pkcs1', k - 3 - message.length).map((b) => b || 0x5a));
    em = Buffer.concat([Buffer.from([0, 2]), ps, Buffer.from([0]), message]);
  }
  return publicEncrypt({ key: publicKey, padding: constants.RSA_NO_PADDING }, em);
}

/** A backup's secret and the record's `encryption_key` (base64), from 48 bytes drawn for it. */
export function sealSecret(drawn: Buffer): { encryption_key: string; secret: SealedSecret } {
  // A pure function of the drawn bytes, and a public-key operation (~0.5 ms): a seed made again (the
  // emulator restarted, the demo sweeps' 3,456 instants) draws the same bytes for the same backups.
  const key = drawn.toString('hex');
  let sealed = sealedCache.get(key);
  if (!sealed) {
    if (sealedCache.size >= SEALED_CACHE_MAX) sealedCache.clear();
    sealed = sealNew(drawn);
    sealedCache.set(key, sealed);
  }
  return { encryption_key: sealed.encryption_key, secret: { ...sealed.secret } };
}

const SEALED_CACHE_MAX = 20_000;
const sealedCache = new Map<string, { encryption_key: string; secret: SealedSecret }>();

function sealNew(drawn: Buffer): { encryption_key: string; secret: SealedSecret } {
  const variant = (drawn[0]! % 4) as SealedSecret['variant'];
  const passphrase = drawn.toString('base64');
  const oaep = variant === 1 || variant === 3;
  // Variant 1: the secret as a passphrase file holds it, with a newline (`openssl enc -pass file:` reads one line).
  const message = Buffer.from(variant === 1 ? `${passphrase}\n` : passphrase);
  return { encryption_key: rsaSeal(message, oaep, drawn).toString('base64'), secret: { passphrase, variant } };
}

/**
 * The plaintext length that seals to exactly `length` bytes, or undefined: the ciphertext is "Salted__", the
 * salt, then CTR (as long as the plaintext) or CBC (padded to the next multiple of 16).
 */
export function plainLengthFor(length: number, variant: SealedSecret['variant']): number | undefined {
  if (variant === 3) return length >= 16 ? length - 16 : undefined;
  return length >= 32 && length % 16 === 0 ? length - 32 : undefined;
}

/** `openssl enc -aes-256-{cbc,ctr} -salt` of `plain` with the variant's key derivation; the salt from the passphrase. */
export function sealBytes(plain: Buffer, secret: SealedSecret): Buffer {
  const salt = createHash('sha256').update(`salt:${secret.passphrase}`).digest().subarray(0, 8);
  const pass = Buffer.from(secret.passphrase);
  let material: Buffer;
  if (secret.variant === 1 || secret.variant === 3) material = pbkdf2Sync(pass, salt, 10_000, 48, 'sha256');
  else {
    const hash = secret.variant === 2 ? 'md5' : 'sha256';
    const parts: Buffer[] = [];
    let prev = Buffer.alloc(0);
    while (Buffer.concat(parts).length < 48) parts.push((prev = createHash(hash).update(prev).update(pass).update(salt).digest()));
    material = Buffer.concat(parts);
  }
  const cipher = createCipheriv(secret.variant === 3 ? 'aes-256-ctr' : 'aes-256-cbc', material.subarray(0, 32), material.subarray(32, 48));
  return Buffer.concat([Buffer.from('Salted__'), salt, cipher.update(plain), cipher.final()]);
}
