// The edges of what --debug and --dry-run mask (src/http/redact.ts), one case per rule, so a
// one-line change to a rule (an anchor, a name, a case flag, a depth) fails a test here: the
// survivors of `npm run mutate -- --mutate src/http/redact.ts` (issue 31).
import { describe, expect, it } from 'vitest';
import { redactBody, redactHeaders, TOO_DEEP } from '../../src/http/redact.js';

describe('headers', () => {
  it.each([
    ['authorization', 'Bearer 12|abc.def-ghi', 'Bearer ****'],
    ['AUTHORIZATION', 'Basic dXNlcjpwYXNz', 'Basic ****'],
    ['Proxy-Authorization', 'Negotiate a b c', 'Negotiate ****'],
    // No scheme: the value is the secret.
    ['authorization', 'barEtoken0123', '****'],
    // A line break in the value: still nothing after the scheme.
    ['authorization', 'Bearer abc\ndef', 'Bearer ****'],
    ['authorization', 'Bearer\tabc', 'Bearer ****'],
    ['authorization', '', '****'],
    // The scheme is what the value begins with, not a word found later in it.
    ['authorization', '=abc def', '****'],
  ])('%s: %j shows as %j', (name, value, shown) => {
    expect(redactHeaders({ [name]: value })).toEqual({ [name]: shown });
  });

  it('only those two names are credentials: a header that merely contains the word is kept', () => {
    const kept = { 'x-authorization-hint': 'Bearer visible', 'authorization-x': 'Bearer visible', 'x-authorization': 'Bearer visible', 'x-cookie-policy': 'strict', 'cookies': 'c=1', 'x-set-cookie': 'c=2' };
    expect(redactHeaders(kept)).toEqual(kept);
  });

  it('cookies of either name and any case are masked whole, lists too', () => {
    expect(redactHeaders({ Cookie: 'sid=1', 'SET-COOKIE': ['a=1', 'b=2'] })).toEqual({ Cookie: '****', 'SET-COOKIE': '****' });
  });

  it('a list value is joined with ", "; a number is written as text; undefined is left out, null kept as text', () => {
    expect(redactHeaders({ accept: ['a', 'b'], 'content-length': 12, gone: undefined, odd: null })).toEqual({ accept: 'a, b', 'content-length': '12', odd: 'null' });
  });
});

describe('bodies', () => {
  it.each(['secret', 'password', 'token', 'key', 'api_key', 'access_key', 'secret_key', 'private_key', 'encryption_key', 'mysql_password', 'TOKEN', 'Password'])(
    'a field named %s is masked',
    (name) => {
      expect(redactBody({ [name]: 'x1' })).toEqual({ [name]: '****' });
      expect(redactBody({ [name]: 7 })).toEqual({ [name]: '****' });
    },
  );

  it.each(['tokens', 'key_id', 'my_secret', 'passwords', 'monkey', 'public_key_name', 'credentials_hint'])('a field named %s is kept: the names match whole', (name) => {
    expect(redactBody({ [name]: 'visible' })).toEqual({ [name]: 'visible' });
  });

  it('an empty, null or absent secret is kept as it is (nothing to hide, and the trace says it was empty)', () => {
    expect(redactBody({ token: '', password: null, secret: undefined })).toEqual({ token: '', password: null, secret: undefined });
    expect(redactBody({ credentials: null })).toEqual({ credentials: null });
  });

  it('an object under a secret name is read into (an SSH key record), its own secrets masked', () => {
    expect(redactBody({ key: { id: 3, name: 'deploy', private_key: 'PEM' } })).toEqual({ key: { id: 3, name: 'deploy', private_key: '****' } });
  });

  it('credentials: every value masked, in an object or a list, any case of the name', () => {
    expect(redactBody({ credentials: { user: 'u', nested: { a: 1 } } })).toEqual({ credentials: { user: '****', nested: '****' } });
    expect(redactBody({ Credentials: ['a', 'b'] })).toEqual({ Credentials: ['****', '****'] });
  });

  it('config: keys with pass, secret or token in them are masked (any case); the rest is read into', () => {
    expect(redactBody({ config: { DB_PASSWORD: 'p', client_secret: 's', auth_token: 't', host: 'h', nested: { token: 'deep' } } })).toEqual({
      config: { DB_PASSWORD: '****', client_secret: '****', auth_token: '****', host: 'h', nested: { token: '****' } },
    });
    // A config that is not an object is kept as it is.
    expect(redactBody({ config: 'plain' })).toEqual({ config: 'plain' });
    expect(redactBody({ config: null })).toEqual({ config: null });
  });

  it('lists are read into; other values are kept', () => {
    expect(redactBody([{ token: 't' }, 'x', 3, null])).toEqual([{ token: '****' }, 'x', 3, null]);
    expect(redactBody('text')).toBe('text');
    expect(redactBody(null)).toBeNull();
  });

  it('20 levels are read into; past them an object is replaced, never shown unmasked', () => {
    const nest = (levels: number): unknown => {
      let v: unknown = { token: 'deep-secret' };
      for (let i = 0; i < levels; i++) v = { a: v };
      return v;
    };
    // { token } at depth 20 (the outermost object is depth 0): still masked.
    expect(JSON.stringify(redactBody(nest(20)))).toContain('"token":"****"');
    const past = JSON.stringify(redactBody(nest(21)));
    expect(past).not.toContain('deep-secret');
    expect(past).toContain('"[nested too deep]"');
    expect(TOO_DEEP).toBe('[nested too deep]');
    // Every way down counts a level: lists, an object under a secret name, a job's config (whose
    // values count two: 20 levels under it are past the limit).
    const down = (wrap: (v: unknown) => unknown, levels = 25): unknown => {
      let v: unknown = { name: 'bottom' };
      for (let i = 0; i < levels; i++) v = wrap(v);
      return v;
    };
    for (const deep of [down((v) => [v]), down((v) => ({ key: v })), { config: down((v) => ({ a: v }), 20) }]) {
      const text = JSON.stringify(redactBody(deep));
      expect(text).toContain('"[nested too deep]"');
      expect(text).not.toContain('bottom');
    }
    // A list counts as a level as well.
    expect(JSON.stringify(redactBody([[[{ password: 'p' }]]]))).toBe('[[[{"password":"****"}]]]');
  });
});
