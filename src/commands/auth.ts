// auth login | status | logout | token: the API token of a profile.
import type { Readable } from 'node:stream';
import * as z from 'zod/mini';
import type { Column, CommandInput, Context, Handler, Result } from '../contract/context.js';
import type { ModuleSpec } from '../contract/spec.js';
import { clientLimitsFromEnv, openContextConfig } from '../cli/context.js';
import { ApiError, ConfigError, InterruptedError, UsageError, noTokenError } from '../errors.js';
import {
  NO_BASE_URL_MESSAGE,
  assertProfileName,
  envValue,
  maskToken,
  resolveBaseUrl,
  resolveDebug,
  resolveProfileName,
  resolveTimeout,
  resolveToken,
  type ConfigStore,
} from '../config/index.js';

/** The cheap request that proves a token works: the smallest page of a list every account can read. */
const VERIFY_PATH = '/ssh-keys';
const VERIFY_QUERY = { page_size: 15 };

/** A token is a short line; anything longer on stdin is a mistake (a whole file piped in). */
const MAX_TOKEN_BYTES = 16 * 1024;

export const module: ModuleSpec = {
  name: 'auth',
  commands: [
    {
      path: ['auth', 'login'],
      summary: 'Save an API token for a profile, after checking it with the service',
      description:
        'Asks for the token with a hidden prompt, or reads it from standard input with --with-token. ' +
        'The token is checked with one GET /v1/ssh-keys before anything is saved. ' +
        'The base URL comes from --base-url, BACKUPCTL_BASE_URL or the profile, and is saved with the token.',
      examples: [
        'backupctl auth login --base-url https://api.example.com',
        'backupctl auth login --with-token --base-url https://api.example.com < token.txt',
        'printenv BACKUP_TOKEN | backupctl --profile work auth login --with-token',
      ],
      params: [
        {
          name: 'with_token',
          flag: 'with-token',
          in: 'local',
          type: 'boolean',
          description: 'Read the token from standard input instead of prompting',
        },
        {
          name: 'provider_names',
          flag: 'provider-names',
          in: 'local',
          type: 'enum',
          values: ['neutral', 'published'],
          aliases: {},
          description:
            "Provider names to send: neutral (the interface document's tokens, cloud_a, /v1/cloud_i/...) or published (aws, /v1/digitalocean/...); saved in the profile (`backupctl doctor` says which the service answers to)",
        },
      ],
      output: { kind: 'none', done: 'Logged in', idField: 'profile' },
      handler: 'login',
      alsoCalls: ['GET /ssh-keys'],
    },
    {
      path: ['auth', 'status'],
      summary: 'Show the profile, base URL and token in use (token masked)',
      examples: ['backupctl auth status', 'backupctl --profile work auth status --json'],
      params: [],
      output: { kind: 'record', schema: 'status', idField: 'profile' },
      handler: 'status',
      local: true,
    },
    {
      path: ['auth', 'logout'],
      summary: "Remove the profile's stored token",
      examples: ['backupctl auth logout', 'backupctl --profile work auth logout'],
      params: [],
      output: { kind: 'none', done: 'Logged out', idField: 'profile' },
      handler: 'logout',
      local: true,
    },
    {
      path: ['auth', 'token'],
      summary: 'Print the token in use (for scripts)',
      examples: ['backupctl auth token', 'curl -H "Authorization: Bearer $(backupctl auth token)" https://api.example.com/v1/servers'],
      params: [],
      output: { kind: 'object' },
      handler: 'token',
      local: true,
    },
  ],
};

/** What `auth status --json` prints: never the token, only its masked form. */
const statusSchema = z.object({
  profile: z.string(),
  base_url: z.nullable(z.string()),
  base_url_from: z.nullable(z.string()),
  token: z.string(),
  token_from: z.nullable(z.string()),
  config_file: z.string(),
});

export const schemas = { status: statusSchema };

function openStore(ctx: Context): Promise<ConfigStore> {
  return openContextConfig(ctx);
}

async function readTokenFromStdin(stdin: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stdin) {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
    size += buf.length;
    if (size > MAX_TOKEN_BYTES) throw new UsageError('--with-token: standard input is too long to be a token');
    chunks.push(buf);
  }
  const token = Buffer.concat(chunks).toString('utf8').trim();
  if (!token) {
    throw new UsageError('--with-token: no token on standard input', [
      '  Pipe it in, e.g. backupctl auth login --with-token < token.txt',
    ]);
  }
  return token;
}

async function promptForToken(ctx: Context): Promise<string> {
  const { password } = await import('../util/prompts.js');
  try {
    const answer = await password(
      {
        message: 'API token:',
        mask: '*',
        validate: (value: string) => value.trim() !== '' || 'The token is empty',
      },
      { input: ctx.io.stdin, output: ctx.io.stderr, signal: ctx.signal },
    );
    return answer.trim();
  } catch (err) {
    const name = (err as Error).name;
    if (name === 'ExitPromptError' || name === 'AbortPromptError' || name === 'CancelPromptError') {
      throw new InterruptedError();
    }
    throw err;
  }
}

async function readToken(input: CommandInput, ctx: Context): Promise<string> {
  let token: string;
  if (input.values.with_token === true) token = await readTokenFromStdin(ctx.io.stdin);
  else if (ctx.io.stdinIsTTY) token = await promptForToken(ctx);
  else {
    throw new UsageError('no terminal to ask for the token on: pass it on standard input with --with-token', [
      '  e.g. backupctl auth login --with-token < token.txt',
    ]);
  }
  // A space or control character would be rejected as an HTTP header value, in a message that could show it.
  if (!/^[\x21-\x7e]+$/.test(token)) {
    throw new UsageError('the token contains spaces or characters that cannot be sent in an HTTP header');
  }
  return token;
}

const login: Handler = async (input, ctx) => {
  const store = await openStore(ctx);
  const profile = resolveProfileName(ctx.globals, ctx.env, store);
  assertProfileName(profile);
  const resolveInput = { globals: ctx.globals, env: ctx.env, store };
  // Settle the base URL and timeout before asking for the token, so a typo is reported first.
  const base = resolveBaseUrl(resolveInput, profile);
  if (!base) throw new ConfigError(NO_BASE_URL_MESSAGE);
  const timeoutMs = resolveTimeout(resolveInput, profile);
  const token = await readToken(input, ctx);

  if (ctx.globals.dryRun) {
    return {
      kind: 'done',
      message: `Would check the token with GET ${base.url}/v1${VERIFY_PATH}?page_size=${VERIFY_QUERY.page_size} and save it as profile ${profile}.`,
      id: profile,
    };
  }

  const { createClient } = await import('../http/client.js');
  const client = createClient({
    baseUrl: base.url,
    token,
    timeoutMs,
    debug: resolveDebug(ctx.globals, ctx.env),
    stderr: ctx.io.stderr,
    ...(await clientLimitsFromEnv(ctx.env)),
  });
  try {
    const response = await client.request(
      { method: 'GET', path: VERIFY_PATH, query: VERIFY_QUERY },
      { signal: ctx.signal },
    );
    // The client throws on error statuses; this guards against one that does not.
    if (response.status < 200 || response.status >= 300) {
      throw new ApiError({
        status: response.status,
        request: { method: 'GET', path: `/v1${VERIFY_PATH}?page_size=${VERIFY_QUERY.page_size}` },
        body: response.body,
      });
    }
  } finally {
    await client.close();
  }

  await store.update((data) => {
    const existing = Object.hasOwn(data.profiles, profile) ? data.profiles[profile] : {};
    data.profiles[profile] = { ...existing, base_url: base.url, token };
    if (input.values.provider_names === 'neutral' || input.values.provider_names === 'published') data.profiles[profile]!.provider_names = input.values.provider_names;
    data.current_profile ??= profile;
  });
  if (envValue(ctx.env, 'BACKUPCTL_TOKEN')) {
    ctx.warn('BACKUPCTL_TOKEN is set: it is used instead of the saved token until you unset it.');
  }
  return { kind: 'done', message: `Logged in to ${base.url} as profile ${profile}.`, id: profile };
};

const STATUS_COLUMNS: Column[] = [
  { key: 'profile', header: 'Profile' },
  { key: 'base_url', header: 'Base URL', get: (r) => r.base_url ?? '(none)' },
  { key: 'base_url_from', header: 'Base URL from', get: (r) => r.base_url_from ?? '' },
  { key: 'token', header: 'Token' },
  { key: 'token_from', header: 'Token from', get: (r) => r.token_from ?? '' },
  { key: 'config_file', header: 'Config file' },
];

const status: Handler = async (_input, ctx) => {
  const store = await openStore(ctx);
  const profile = resolveProfileName(ctx.globals, ctx.env, store);
  const base = resolveBaseUrl({ globals: ctx.globals, env: ctx.env, store }, profile);
  const token = resolveToken(ctx.env, store, profile);
  // Only the masked form ever enters the record: it may be printed as JSON or TSV.
  const record = {
    profile,
    base_url: base?.url ?? null,
    base_url_from: base?.source ?? null,
    token: maskToken(token?.token),
    token_from: token?.source ?? null,
    config_file: store.file,
  };
  if (!token) {
    throw noTokenError(profile, [
      `  Base URL: ${record.base_url ?? '(none)'}${record.base_url_from ? ` (from ${record.base_url_from})` : ''}`,
      `  Config file: ${store.file}`,
    ]);
  }
  return { kind: 'record', record, columns: STATUS_COLUMNS, idField: 'profile' };
};

const logout: Handler = async (_input, ctx) => {
  const store = await openStore(ctx);
  const profile = resolveProfileName(ctx.globals, ctx.env, store);
  let message = `No token stored for profile ${profile}.`;
  if (store.profile(profile).token !== undefined) {
    await store.unsetValue(profile, 'token');
    message = `Removed the token of profile ${profile}.`;
  }
  if (envValue(ctx.env, 'BACKUPCTL_TOKEN')) {
    ctx.warn('BACKUPCTL_TOKEN is still set in the environment and is still used.');
  }
  const result: Result = { kind: 'done', message, id: profile };
  return result;
};

const token: Handler = async (_input, ctx) => {
  const store = await openStore(ctx);
  const profile = resolveProfileName(ctx.globals, ctx.env, store);
  const found = resolveToken(ctx.env, store, profile);
  if (!found) throw noTokenError(profile);
  return { kind: 'text', text: `${found.token}\n` };
};

export const handlers: Record<string, Handler> = { login, status, logout, token };
