// The stated sizes of backup files: one parser, in src/backups/size.ts.
export { parseStatedSize, type StatedSize } from '../backups/size.js';
