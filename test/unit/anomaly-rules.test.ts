// The anomaly rules one by one (issue 45: a plant in each was caught by one e2e test only):
// the ransom-note names, and the entropy threshold and its defaults.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { HIGH_ENTROPY, entropy, isRansomNoteName } from '../../src/catalog/fingerprint.js';
import { thresholdsFrom } from '../../src/catalog/anomalies.js';

describe('ransom-note names', () => {
  it('a note-like name with a ransom word, or a known exact name, in any folder and case', () => {
    for (const p of ['README_RESTORE_FILES.txt', 'docs/HOW_TO_DECRYPT.txt', 'x/_readme.txt', '!!!READ_ME!!!.txt', '#readme.txt', 'readme.warning', 'read_it.txt', 'RECOVER-your-files.html', 'unlock.hta', 'ransom.url', 'your_files.rtf'])
      expect(isRansomNoteName(p), p).toBe(true);
  });
  it('not an ordinary file: a ransom word in a name that is no note, or a note without one', () => {
    for (const p of ['restore.sh', 'decrypt.py', 'docs/README.txt', 'notes.txt', 'backup/restore.sql', 'readme.md', 'report.doc.locked'])
      expect(isRansomNoteName(p), p).toBe(false);
  });
});

describe('the entropy threshold', () => {
  it('7.5 bits a byte: random bytes are above it, text and zeros below', () => {
    expect(HIGH_ENTROPY).toBe(7.5);
    expect(entropy(randomBytes(16 * 1024))).toBeGreaterThanOrEqual(HIGH_ENTROPY);
    expect(entropy(Buffer.from('the quick brown fox jumps over the lazy dog 0123456789\n'.repeat(300)))).toBeLessThan(HIGH_ENTROPY);
    expect(entropy(Buffer.alloc(4096))).toBe(0);
    // Every byte value equally often: exactly 8.
    expect(entropy(Uint8Array.from({ length: 512 }, (_, i) => i % 256))).toBe(8);
  });
  it('the share and minimum count default to 20% and 5 members', () => {
    expect(thresholdsFrom({})).toMatchObject({ entropy_share: 0.2, entropy_min: 5 });
  });
});
