// A child process for test/e2e/config-integrity.test.ts: writes the config
// file through the real store (lock, conf, atomic rename) as fast as it can,
// printing each counter value once its write is complete, until it is killed.
// Bundled with esbuild by the test (Node cannot run TypeScript directly).
//   node config-writer.mjs <config dir> <padding profiles>
import { openConfig } from '../../src/config/index.js';

const [dir, paddingText] = process.argv.slice(2);
if (!dir) throw new Error('usage: config-writer <dir> <padding>');
const padding = Number(paddingText ?? '0');

const store = await openConfig(dir);
// Padding makes every write a few hundred KB, so kills land in the middle of one.
if (!store.hasProfile('pad-0') && padding > 0) {
  await store.update((data) => {
    for (let i = 0; i < padding; i++) {
      data.profiles[`pad-${i}`] = { base_url: `https://pad-${i}.example.com/${'x'.repeat(1000)}`, output: 'json', timeout: `${i + 1}s` };
    }
  });
}
// `none` when no run has written the counter yet (every earlier run was killed before its first write):
// an absent value, which `config list` shows as null, not a counter of 0.
const found = /^(\d+)s$/.exec(String(store.profile('counter').timeout ?? ''))?.[1];
process.stdout.write(`ready ${found ?? 'none'}\n`);
for (let n = Number(found ?? '0') + 1; ; n++) {
  await store.setValue('counter', 'timeout', `${n}s`);
  process.stdout.write(`wrote ${n}\n`);
}
