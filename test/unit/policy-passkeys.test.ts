/** The policy's [passkeys] section (src/policy/passkey-settings.ts): defaults, origins judged as a browser judges them for the RP ID, and when a passkey is the only factor. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { explainPolicy, parsePolicy, PolicyError } from '../../src/policy/policy.js';
import { DEFAULT_PASSKEY_SETTINGS, needsPasskey } from '../../src/policy/passkey-settings.js';

test('no [passkeys] section: the console on localhost, and a passkey never required', () => {
  assert.deepEqual(parsePolicy('').passkeys, DEFAULT_PASSKEY_SETTINGS);
  assert.deepEqual(DEFAULT_PASSKEY_SETTINGS, { rpId: 'localhost', origins: ['http://localhost:7443'], requiredFrom: null, ownRequests: false });
  assert.match(explainPolicy(parsePolicy('')).lines.join('\n'), /passkeys: never required/);
});

test('an rp_id alone means its https origin; every setting is read', () => {
  assert.deepEqual(parsePolicy('[passkeys]\nrp_id = "airlock.example.org"\n').passkeys.origins, ['https://airlock.example.org']);
  const p = parsePolicy('[passkeys]\nrp_id = "example.org"\norigins = ["https://airlock.example.org", "https://example.org:8443"]\nrequired_from = "medium"\nown_requests = true\n').passkeys;
  assert.deepEqual(p, { rpId: 'example.org', origins: ['https://airlock.example.org', 'https://example.org:8443'], requiredFrom: 'medium', ownRequests: true });
  assert.equal(parsePolicy('[passkeys]\nrequired_from = "never"\n').passkeys.requiredFrom, null);
  assert.match(explainPolicy(parsePolicy('[passkeys]\nrequired_from = "high"\n')).lines.join('\n'), /needs a passkey from high risk up; a TOTP code does not approve those/);
});

test('an origin a browser would refuse for the RP ID, or outside a secure context, is refused with what to write', () => {
  const refused: Array<[string, RegExp]> = [
    ['rp_id = "example.org"\norigins = ["https://evil.com"]', /not rp_id example\.org nor under it/],
    ['rp_id = "example.org"\norigins = ["https://notexample.org"]', /not rp_id example\.org nor under it/],
    ['rp_id = "example.org"\norigins = ["http://example.org"]', /only from https, or http on localhost/],
    ['origins = ["http://localhost:7443/console"]', /write the origin alone/],
    ['origins = ["localhost:7443"]', /not a URL|origin alone|not rp_id/],
    ['rp_id = "Example.org"', /lower case/],
    ['rp_id = "https://example.org"', /lower case/],
    ['origins = []', /origins/],
    ['required_from = "critical"', /required_from/],
    ['trust_everyone = true', /trust_everyone|unrecognized/i],
  ];
  for (const [body, message] of refused) {
    assert.throws(() => parsePolicy(`[passkeys]\n${body}\n`), (e: unknown) => e instanceof PolicyError && message.test(e.message), body);
  }
});

test('a passkey is required from its risk up, and for every approval of a request of ones own when own_requests is set', () => {
  const high = { ...DEFAULT_PASSKEY_SETTINGS, requiredFrom: 'high' as const };
  assert.deepEqual(['low', 'medium', 'high'].map((r) => needsPasskey(high, r as 'low', false)), [false, false, true]);
  const own = { ...DEFAULT_PASSKEY_SETTINGS, ownRequests: true };
  assert.deepEqual([needsPasskey(own, 'low', true), needsPasskey(own, 'low', false), needsPasskey(own, 'high', false)], [true, false, false]);
  assert.equal(needsPasskey(DEFAULT_PASSKEY_SETTINGS, 'high', true), false);
});

test('[console]: its account, its address (whose origin passkeys must allow) and how long a sign-in lasts', () => {
  assert.deepEqual(parsePolicy('').console, { user: 'airlock-console', url: 'http://localhost:7443', sessionMs: 480 * 60_000 });
  const p = parsePolicy('[passkeys]\nrp_id = "airlock.example.org"\n[console]\nuser = "webconsole"\nurl = "https://airlock.example.org/"\nsession_minutes = 60\n');
  assert.deepEqual(p.console, { user: 'webconsole', url: 'https://airlock.example.org', sessionMs: 3_600_000 });
  assert.match(explainPolicy(p).lines.join('\n'), /console: the account webconsole relays passkey sign-ins and approvals from https:\/\/airlock\.example\.org; a sign-in lasts 60 min/);
  for (const [body, message] of [
    ['[console]\nurl = "https://elsewhere.example"', /not among \[passkeys\] origins/],
    ['[console]\nuser = "root"', /never root/],
    ['[console]\nsession_minutes = 2', /session_minutes/],
    ['[console]\nurl = "ftp://localhost:7443"', /url/],
  ] as const) {
    assert.throws(() => parsePolicy(body), (e: unknown) => e instanceof PolicyError && message.test(e.message), body);
  }
});
