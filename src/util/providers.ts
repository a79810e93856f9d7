// The one table of provider names (issue 30 §1). The interface document writes neutral tokens
// (`cloud_a`) where the published service writes company names (`aws`), "used identically in
// parameters, responses and paths", in the same order of both lists. backupctl accepts either
// name everywhere a provider is typed (flags, filters, backups-file fields), case-insensitively;
// the profile setting `provider-names` (neutral | published) chooses which one is sent, and
// which prefix the droplet/volume area has (`/v1/cloud_i/…` or `/v1/digitalocean/…`).
// Data only, plus the small functions that read it: no imports, usable from every layer.

/** Which spelling a profile sends: the interface document's tokens, or the published names. */
export type ProviderNames = 'neutral' | 'published';
export const PROVIDER_NAME_MODES: readonly ProviderNames[] = ['neutral', 'published'];
export const DEFAULT_PROVIDER_NAMES: ProviderNames = 'neutral';

/**
 * Token -> published name. `cloud_m` is the service's own storage: the published pages name it
 * with the service's brand, which the interface document does not give; it is sent as `cloud_m`
 * in both modes (docs/published-service.md).
 */
export const PUBLISHED_NAMES: Readonly<Record<string, string>> = {
  cloud_a: 'aws',
  cloud_b: 'aws_lightsail',
  cloud_c: 'exoscale',
  cloud_d: 'hetzner',
  cloud_e: 'gcp',
  cloud_f: 'upcloud',
  cloud_g: 'scaleway',
  cloud_h: 'vultr',
  cloud_i: 'digitalocean',
  cloud_j: 'wasabi',
  cloud_k: 'b2',
  cloud_l: 'filebase',
  cloud_m: 'cloud_m',
  custom: 'custom',
};

/** Published name -> token (lower-case keys). */
const TOKENS: Readonly<Record<string, string>> = Object.fromEntries(Object.entries(PUBLISHED_NAMES).map(([token, name]) => [name, token]));

/** The path segment of the droplet/volume area (under /v1), by mode. */
export const MACHINE_AREA: Readonly<Record<ProviderNames, string>> = { neutral: 'cloud_i', published: 'digitalocean' };

/** The token a provider value stands for (`AWS`, `aws`, `cloud_a` -> `cloud_a`); undefined when it is neither. */
export function providerToken(value: string): string | undefined {
  const v = value.trim().toLowerCase();
  if (Object.hasOwn(PUBLISHED_NAMES, v)) return v;
  return Object.hasOwn(TOKENS, v) ? TOKENS[v] : undefined;
}

/** The published name of a token or name (`cloud_a` -> `aws`); the value itself when unknown. */
export function publishedName(value: string): string {
  const token = providerToken(value);
  return token ? PUBLISHED_NAMES[token]! : value;
}

/** A token as the profile sends it. */
export function providerForService(token: string, mode: ProviderNames): string {
  const t = providerToken(token);
  if (!t) return token;
  return mode === 'published' ? PUBLISHED_NAMES[t]! : t;
}

/** The published names of a token list, for `aliases` of a flag: `{aws: 'cloud_a', ...}` (names equal to their token left out). */
export function providerAliases(tokens: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const t of tokens) {
    const name = PUBLISHED_NAMES[t];
    if (name && name !== t) out[name] = t;
  }
  return out;
}

/** The request paths whose `provider` (query or body) is a provider value to translate. */
const PROVIDER_PATHS = /^\/(storage|snapshots|snapshots\/accounts|snapshots\/resources)(\/\d+)?$/;

/** A path of the droplet/volume area as the profile's service spells it: `/cloud_i/droplets` -> `/digitalocean/droplets`. */
export function servicePath(path: string, mode: ProviderNames): string {
  const m = /^(\/(?:v1\/)?)(cloud_i|digitalocean)(?=\/|$)/.exec(path);
  if (!m) return path;
  return m[1] + MACHINE_AREA[mode] + path.slice(m[0].length);
}

/** Whether a request to `path` carries a provider value in its `provider` field. */
export function carriesProvider(path: string): boolean {
  return PROVIDER_PATHS.test(path.replace(/^\/v1(?=\/)/, '').split('?')[0]!);
}

/** Reads a `provider-names` setting; undefined when it is neither word. */
export function parseProviderNames(value: string): ProviderNames | undefined {
  const v = value.trim().toLowerCase();
  return (PROVIDER_NAME_MODES as readonly string[]).includes(v) ? (v as ProviderNames) : undefined;
}

/**
 * A request as the profile's service spells it: the droplet/volume prefix, and the `provider`
 * (query or body) of the requests that carry one. The client of every command and --dry-run's
 * curl line both go through here.
 */
export function spellRequest<R extends { path: string; query?: Record<string, unknown>; body?: unknown; asWritten?: boolean }>(req: R, mode: ProviderNames): R {
  if (req.asWritten) return req;
  const path = servicePath(req.path, mode);
  if (!carriesProvider(req.path)) return path === req.path ? req : { ...req, path };
  const swap = (v: unknown) => (typeof v === 'string' ? providerForService(v, mode) : v);
  const query = req.query && typeof req.query.provider === 'string' ? { ...req.query, provider: swap(req.query.provider) } : req.query;
  const b = req.body as Record<string, unknown> | undefined;
  const body = b && typeof b === 'object' && !Array.isArray(b) && typeof b.provider === 'string' ? { ...b, provider: swap(b.provider) } : req.body;
  return { ...req, path, query, body };
}
