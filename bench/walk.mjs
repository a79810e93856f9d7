// The walk both bare walkers do (bench/walker.mjs over node:http, bench/walker-undici.mjs
// over undici): page 1, then the pages its meta.last_page announces, IN_FLIGHT at a
// time; each answer's records written to stdout as ndjson lines, in page order.
// `getPage(n)` resolves with page n's parsed body; only the transport differs.
export const IN_FLIGHT = 8;

function write(body) {
  let out = '';
  for (const record of body.data) out += `${JSON.stringify(record)}\n`;
  return new Promise((resolve) => (process.stdout.write(out) ? resolve() : process.stdout.once('drain', resolve)));
}

export async function walk(getPage) {
  const first = await getPage(1);
  await write(first);
  const last = first.meta.last_page;
  const inflight = new Map();
  let next = 2;
  for (let n = 2; n <= last; n++) {
    while (inflight.size < IN_FLIGHT && next <= last) {
      const p = getPage(next);
      p.catch(() => {}); // awaited in order below
      inflight.set(next++, p);
    }
    await write(await inflight.get(n));
    inflight.delete(n);
  }
}
