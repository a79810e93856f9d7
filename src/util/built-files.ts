// Files the build writes beside the bundle that the CLI reads: dist/startup/ and dist/jq.wasm.gz.
// The single executable (`npm run package`, src/scripts/sea.mjs) has no dist/:
// there the same files are assets of its blob, under the same names.
import { readFileSync } from 'node:fs';
import { getAsset, isSea } from 'node:sea';

/** The text of the built file `name` ("startup/index.json"), from `locate()` on disk or the executable's blob. */
export function readBuiltFile(name: string, locate: () => URL): string {
  return isSea() ? getAsset(name, 'utf8') : readFileSync(locate(), 'utf8');
}

/** The bytes of the built file `name` ("jq.wasm.gz"), as readBuiltFile finds it. */
export function readBuiltBinary(name: string, locate: () => URL): Uint8Array {
  return isSea() ? new Uint8Array(getAsset(name)) : readFileSync(locate());
}
