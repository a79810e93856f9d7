import { describe, expect, it } from 'vitest';
import { Readable } from 'node:stream';
import { parseValues } from '../../src/cli/values.js';
import { buildRequest } from '../../src/cli/request.js';
import { parseDatetime, parseDuration } from '../../src/util/time.js';
import type { CommandSpec } from '../../src/contract/spec.js';
import { UsageError } from '../../src/errors.js';

const spec: CommandSpec = {
  path: ['things', 'add'],
  summary: 's',
  examples: ['x'],
  method: 'POST',
  endpoint: '/things/{thing_id}',
  params: [
    { name: 'thing_id', flag: 'id', in: 'path', type: 'integer', positional: true, required: true, description: 'id' },
    { name: 'provider', in: 'body', type: 'enum', values: ['a', 'b', 'custom'], required: true, description: 'p' },
    { name: 'endpoint', in: 'body', type: 'string', requiredWhen: { provider: ['custom'] }, description: 'e' },
    { name: 'ssh_port', flag: 'port', in: 'body', type: 'integer', wire: 'string', min: 1, max: 65535, description: 'p' },
    { name: 'credentials', flag: 'credentials-file', in: 'body', type: 'json-file', description: 'c' },
    { name: 'credentials.secret', flag: 'secret', in: 'body', type: 'string', requiredWhen: { provider: ['a'] }, description: 's' },
    { name: 'retention.daily', flag: 'retention-daily', in: 'body', type: 'integer', min: 0, description: 'r' },
    { name: 'tags', in: 'query', type: 'tags', tagValue: 1, description: 't' },
    { name: 'tags#without', flag: 'without-tags', in: 'query', type: 'tags', tagValue: 0, description: 't' },
    { name: 'secondary_region', in: 'body', type: 'string', nullable: true, description: 'r' },
  ],
  output: { kind: 'none' },
};

const stdin = (text = '') => Readable.from([Buffer.from(text)]);
const parse = (positionals: string[], options: Record<string, unknown>, input = '') =>
  parseValues(spec, { positionals, options }, stdin(input));

describe('flag checking', () => {
  it('names the flag and the allowed values for a bad enum', async () => {
    const err = await parse(['1'], { provider: 'zz' }).catch((e) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect(err.exitCode).toBe(2);
    expect(err.message).toBe('invalid value "zz" for --provider: must be one of: a, b, custom');
  });
  it('refuses a lone UTF-16 surrogate (it could not be URL-encoded) as a usage error', async () => {
    const err = await parse(['1'], { provider: 'custom', endpoint: 'ab\ud800' }).catch((e) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect(err.message).toBe('invalid value "ab\\ud800" for --endpoint: must be valid Unicode text (it holds a lone surrogate)');
    expect(await parse(['1'], { provider: 'custom', endpoint: 'caf\u00e9 \ud83d\ude00' })).toMatchObject({ endpoint: 'caf\u00e9 \ud83d\ude00' });
  });
  it('checks integer bounds', async () => {
    const err = await parse(['1'], { provider: 'b', port: '70000' }).catch((e) => e);
    expect(err.message).toContain('--port: must be at most 65535');
    expect((await parse(['x'], { provider: 'b' }).catch((e) => e)).message).toContain('<id>: must be a whole number');
  });
  it('requires conditional flags, and a credentials file satisfies them', async () => {
    const err = await parse(['1'], { provider: 'a' }).catch((e) => e);
    expect(err.message).toBe('missing required flag --secret: --provider a needs it');
    const v = await parse(['1'], { provider: 'a', credentialsFile: '-' }, '{"secret":"S","key":"K"}');
    expect(v.credentials).toEqual({ secret: 'S', key: 'K' });
    expect((await parse(['1'], { provider: 'custom' }).catch((e) => e)).message).toContain('--endpoint');
  });
  it('builds the body: wire types, nesting, file merged under flags, null for --no-flag', async () => {
    const v = await parse(['7'], {
      provider: 'a',
      port: '2222',
      credentialsFile: '-',
      secret: 'FLAG',
      retentionDaily: '7',
      tags: 'manual,daily',
      withoutTags: 'weekly',
      secondaryRegion: false,
    }, '{"secret":"FILE","key":"K"}');
    const req = buildRequest(spec, v)!;
    expect(req.path).toBe('/things/7');
    expect(req.query).toEqual({ tags: { manual: 1, daily: 1, weekly: 0 } });
    expect(req.body).toEqual({
      provider: 'a',
      ssh_port: '2222',
      credentials: { secret: 'FLAG', key: 'K' },
      retention: { daily: 7 },
      secondary_region: null,
    });
  });
  it('rejects unknown tags and malformed JSON files', async () => {
    expect((await parse(['1'], { provider: 'b', tags: 'manual,yearly' }).catch((e) => e)).message).toContain(
      'takes a comma-separated list of: manual, hourly, daily, weekly, monthly',
    );
    expect((await parse(['1'], { provider: 'b', credentialsFile: '-' }, '{nope').catch((e) => e)).message).toContain('not valid JSON');
    expect((await parse(['1'], { provider: 'b', credentialsFile: '/nonexistent/x.json' }).catch((e) => e)).message).toContain('no such file');
  });
});

describe('time parsing', () => {
  const now = Date.parse('2026-11-22T12:00:00Z');
  it('turns ages into ISO 8601 UTC', () => {
    expect(parseDatetime('24h', now)).toBe('2026-11-21T12:00:00.000Z');
    expect(parseDatetime('7d', now)).toBe('2026-11-15T12:00:00.000Z');
    expect(parseDatetime('2w', now)).toBe('2026-11-08T12:00:00.000Z');
    expect(parseDatetime('90m', now)).toBe('2026-11-22T10:30:00.000Z');
  });
  it('normalises ISO input to UTC and rejects the rest', () => {
    expect(parseDatetime('2026-01-31T02:00:00+01:00')).toBe('2026-01-31T01:00:00.000Z');
    expect(parseDatetime('2026-01-31')).toBe('2026-01-31T00:00:00.000Z');
    expect(parseDatetime('yesterday')).toBeUndefined();
    expect(parseDatetime('2026-13-45')).toBeUndefined();
  });
  it('parses durations', () => {
    expect(parseDuration('30s')).toBe(30_000);
    expect(parseDuration('1h30m')).toBe(5_400_000);
    expect(parseDuration('500ms')).toBe(500);
    expect(parseDuration('12')).toBe(12_000);
    expect(parseDuration('soon')).toBeUndefined();
  });
});
