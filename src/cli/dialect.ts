// Which spelling the service takes (issue 42 §3): the interface document's (`cloud_a`,
// /v1/cloud_i/…) or the published pages' (`aws`, /v1/digitalocean/…). A profile's
// `provider_names` (or $BACKUPCTL_PROVIDER_NAMES) only overrides; without it the service is
// probed once, when a request first depends on the spelling, and the answer is remembered in the
// profile for its base URL (`detected_provider_names`, written atomically under the config lock).
// A remembered spelling that meets a 404 in the droplet/volume area is probed again.
//
// The probe costs nothing on a neutral service: a request of the droplet/volume area is sent as
// remembered (neutral at first) and, on a 404, once more in the other spelling; the one that
// answers is the service's. A request that carries a provider value goes out as guessed; a 422
// about the provider (nothing done) runs the probe, one page of droplets (neutral path first, the
// smallest page: 15), and the request goes again in the spelling found. A schedule made from a
// frequency waits for the probe (the two spellings differ in substance, not in a 422).
import type { Client, Page, RequestSpec } from '../contract/context.js';
import { ApiError } from '../errors.js';
import { carriesProvider, spellRequest, type ProviderNames } from '../util/providers.js';

export interface DialectOptions {
  mode: ProviderNames;
  source: 'env' | 'profile' | 'detected' | 'default';
  /** Keeps a spelling found by a probe (the profile's config); never throws. */
  remember(mode: ProviderNames): Promise<void>;
  /** --debug lines. */
  debug?(line: string): void;
}

const AREA = /^\/(?:v1\/)?(cloud_i|digitalocean)(\/|$)/;
const other = (mode: ProviderNames): ProviderNames => (mode === 'neutral' ? 'published' : 'neutral');

/** Whether a request names a provider that the spelling changes. */
function namesProvider(req: RequestSpec): boolean {
  if (!carriesProvider(req.path)) return false;
  const body = req.body as Record<string, unknown> | undefined;
  return typeof req.query?.provider === 'string' || (!!body && typeof body === 'object' && typeof body.provider === 'string');
}

const notFound = (err: unknown): boolean => err instanceof ApiError && err.status === 404;

/** The client, speaking the service's spelling: set, remembered, or probed once (above). */
export function withDialect(client: Client, o: DialectOptions): Client {
  const fixed = o.source === 'env' || o.source === 'profile';
  let mode = o.mode;
  /** Known for this run: set, or seen answering (a remembered one is trusted until a 404). */
  let known = fixed || o.source === 'detected';
  let probing: Promise<ProviderNames> | undefined;

  let remembered: ProviderNames | undefined = o.source === 'detected' ? o.mode : undefined;
  const found = async (m: ProviderNames): Promise<void> => {
    if (m !== mode) o.debug?.(`the service answers to the ${m} spelling (/v1/${m === 'neutral' ? 'cloud_i' : 'digitalocean'}/…), not the ${mode} one: using it`);
    mode = m;
    known = true;
    if (remembered !== m) {
      remembered = m;
      await o.remember(m);
    }
  };

  /** One request of the droplet/volume area: as known; on a 404 (not set by the user), in the other spelling too. */
  const areaRequest = async (req: RequestSpec, opts: { signal?: AbortSignal } | undefined) => {
    const tried = mode;
    try {
      const res = await client.request(spellRequest(req, tried), opts);
      if (!known) await found(tried);
      return res;
    } catch (err) {
      if (fixed || !notFound(err)) throw err;
      try {
        const res = await client.request(spellRequest(req, other(tried)), opts);
        await found(other(tried));
        return res;
      } catch {
        throw err;
      }
    }
  };

  const probe = (opts: { signal?: AbortSignal } | undefined): Promise<ProviderNames> => {
    probing ??= areaRequest({ method: 'GET', path: '/cloud_i/droplets', query: { page_size: 15 } }, opts).then(
      () => mode,
      (err: unknown) => {
        // The probe could not tell (a refused token, an outage): the request itself will say why.
        o.debug?.(`could not tell which provider names the service takes (${err instanceof Error ? err.message : String(err)}): sending the ${mode} ones`);
        return mode;
      },
    );
    return probing;
  };

  const dialect = async (opts?: { signal?: AbortSignal }): Promise<ProviderNames> => (known ? mode : probe(opts));

  return {
    async request(req, opts) {
      if (fixed || req.asWritten) return client.request(spellRequest(req, mode), opts);
      if (AREA.test(req.path)) return areaRequest(req, opts);
      if (!namesProvider(req) || known) return client.request(spellRequest(req, mode), opts);
      // Not known yet: sent as guessed (a neutral service costs nothing more); a 422 about the
      // provider (nothing was done) makes the probe run, and the request goes again when it
      // finds the other spelling.
      const tried = mode;
      try {
        return await client.request(spellRequest(req, tried), opts);
      } catch (err) {
        if (!(err instanceof ApiError && err.status === 422 && /provider/i.test(JSON.stringify(err.details) + err.message))) throw err;
        if ((await dialect(opts)) === tried) throw err;
        return client.request(spellRequest(req, mode), opts);
      }
    },
    async *pages(req, opts) {
      if (fixed || req.asWritten || !AREA.test(req.path)) {
        if (fixed || req.asWritten || known || !namesProvider(req)) {
          yield* client.pages(spellRequest(req, mode), opts);
          return;
        }
        // A provider filter, the spelling not known yet: as request() above, on the first page.
        const tried = mode;
        let pagesSeen = 0;
        try {
          for await (const page of client.pages(spellRequest(req, tried), opts)) {
            pagesSeen++;
            yield page;
          }
          return;
        } catch (err) {
          if (pagesSeen || !(err instanceof ApiError && err.status === 422 && /provider/i.test(JSON.stringify(err.details) + err.message))) throw err;
          if ((await dialect(opts)) === tried) throw err;
        }
        yield* client.pages(spellRequest(req, mode), opts);
        return;
      }
      const tried = mode;
      let first = true;
      try {
        for await (const page of client.pages(spellRequest(req, tried), opts)) {
          if (first && !known) await found(tried);
          first = false;
          yield page;
        }
        return;
      } catch (err) {
        if (!first || !notFound(err)) throw err;
        let again: AsyncIterator<Page>;
        let next: IteratorResult<Page>;
        try {
          again = client.pages(spellRequest(req, other(tried)), opts)[Symbol.asyncIterator]();
          next = await again.next();
        } catch {
          throw err;
        }
        await found(other(tried));
        while (!next.done) {
          yield next.value;
          next = await again.next();
        }
      }
    },
    close: () => client.close(),
    providerNames: () => dialect(),
  };
}
