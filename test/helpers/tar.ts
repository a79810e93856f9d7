// Tar archives the tests need beyond src/emulator/archives.ts.
import { tarArchive } from '../../src/emulator/archive-formats.js';

/** A v7 tar (no ustar magic): the magic, version and owner names cleared, the header checksum written again. */
export function v7Tar(): Buffer {
  const tar = tarArchive([{ name: 'notes.txt', data: Buffer.from('an old tar\n'.repeat(50)) }]);
  const h = tar.subarray(0, 512);
  h.fill(0, 257, 345);
  h.fill(0x20, 148, 156);
  let sum = 0;
  for (const b of h) sum += b;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  return tar;
}
