// Validation of the config file's content. This module is loaded only when a
// config file is read or written, never at start-up. zod/mini is imported
// statically so the bundler keeps only what is used (a dynamic import keeps
// all of zod, locales included: 500 KB more to compile on every command).
import * as z from 'zod/mini';
// The English messages only (zod/locales as a whole is 40 locales).
import en from 'zod/v4/locales/en.js';
import type { ConfigData } from './types.js';
import { OUTPUT_FORMATS, PROFILE_NAME } from './types.js';

export type ConfigCheck = { ok: true; data: ConfigData } | { ok: false; problems: string[] };

let checker: Promise<(value: unknown) => ConfigCheck> | undefined;

/** A function that checks parsed JSON against the config shape, strictly (unknown keys are errors). */
export function loadConfigChecker(): Promise<(value: unknown) => ConfigCheck> {
  checker ??= Promise.resolve().then(() => {
    // zod/mini ships no messages by default; these checks report in English.
    z.config(en());
    const profile = z.strictObject({
      base_url: z.optional(z.string()),
      token: z.optional(z.string()),
      output: z.optional(z.enum(OUTPUT_FORMATS as [string, ...string[]])),
      timeout: z.optional(z.union([z.string(), z.number()], { error: 'expected a duration such as "30s" or a number of seconds' })),
      provider_names: z.optional(z.enum(['neutral', 'published'])),
      state_url: z.optional(z.string()),
      detected_provider_names: z.optional(z.strictObject({ base_url: z.string(), provider_names: z.enum(['neutral', 'published']) })),
      jobs: z.optional(
        z.record(
          z.string().check(z.minLength(1)),
          z.strictObject({ private_key: z.optional(z.string()), private_key_pass_file: z.optional(z.string()), decrypt_with: z.optional(z.string()) }),
        ),
      ),
    });
    const nameRule = 'profile names are letters, digits, ".", "_" and "-"';
    const name = z.string().check(z.regex(PROFILE_NAME, nameRule));
    const file = z.strictObject({
      current_profile: z.optional(name),
      profiles: z.optional(z.record(name, profile)),
    });
    return (value: unknown): ConfigCheck => {
      // zod drops a `__proto__` key without a word (so that it cannot set a prototype): a
      // profile of that name would vanish on the next write. It is no valid profile name,
      // so the file is reported as broken, and kept as it is.
      const profiles = (value as { profiles?: unknown } | null)?.profiles;
      if (profiles && typeof profiles === 'object' && Object.hasOwn(profiles, '__proto__')) {
        return { ok: false, problems: [`profiles.__proto__: invalid profile name (${nameRule})`] };
      }
      const r = file.safeParse(value);
      if (r.success) {
        const data: ConfigData = { profiles: (r.data.profiles ?? {}) as ConfigData['profiles'] };
        if (r.data.current_profile !== undefined) data.current_profile = r.data.current_profile;
        return { ok: true, data };
      }
      return {
        ok: false,
        problems: r.error.issues.map((issue) => {
          const where = issue.path.length ? issue.path.map(String).join('.') : 'top level';
          if (issue.code === 'invalid_key') return `${where}: invalid profile name (${nameRule})`;
          return `${where}: ${issue.message}`;
        }),
      };
    };
  });
  return checker;
}
