/**
 * A passkey registered on one host, registered on another by its person through the console's
 * page (`airlock passkey add --existing FILE`), against two real daemons with real Unix users:
 * the registration begun with `existing` is answered by that passkey's assertion
 * (console.registration_response `existing_assertion`), verified by the daemon as
 * passkey.register verifies it, parked, and finished at the person's terminal with their code
 * there (or the vouching passkey they hold there).
 *
 * Attacks first, on the daemon's methods with a software authenticator: an assertion by another
 * credential, another's signature under the credential's id, a forged signature, a wrong origin
 * or RP ID, no user verification, another challenge, a rawId that is not the id; a new credential
 * sent to such a registration, an assertion sent to a new passkey's, both or neither; a second
 * answer. Each is refused with its code and parks nothing. A good answer parks; the terminal
 * stores it with the code (entry `existing: true`), and the passkey then approves a change there.
 *
 * Then for real: alice's passkey on host 1, `airlock passkey export` there as alice, and
 * `airlock passkey add --existing FILE` as alice on host 2 at a pseudo-terminal, left polling
 * while Debian's Chromium (the DevTools virtual authenticator holding the SAME private key)
 * opens the printed link on host 2's console and signs; the command asks her code there and
 * exits 0; host 2 holds the same passkey id, and she signs in to host 2's console with it.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { readSqliteLog } from '../../src/audit/log-file.js';
import { passkeyId } from '../../src/protocol/passkey.js';
import type { Principal } from '../../src/sandbox/principal.js';
import { airlockAs } from '../support/cli.js';
import { browserWithPasskeys, holdCredential, openRegistration, visible } from '../support/console-browser.js';
import { passkeyAdd, startConsole } from '../support/console-cli.js';
import { freePort } from '../support/loopback.js';
import { SoftAuthenticator } from '../support/soft-authenticator.js';
import { rejectsWith, startWorld, type World } from '../support/world.js';

const CHROMIUM = '/usr/bin/chromium';
const APPROVER = ['airlock-admin', 'airlock-approvers'];
type Entry = { kind: string; transaction_id: string | null; principal: Record<string, unknown> | null; details: Record<string, unknown> };

let port: number;
let origin: string;
let h1: World, h2: World;
/** The console's account on host 2 (the policy's default `[console] user`): what the page's requests come through. */
let consoleAccount: Principal;
/** A folder every test user may read: the exported files the real CLI reads as alice. */
let files: string;

const logOf = (w: World) => [...readSqliteLog(w.d.files.db)].map((e) => JSON.parse(e.body) as Entry);
const idOf = (key: SoftAuthenticator) => Buffer.from(key.credentials[0]!.id).toString('base64url');
type Exported = { credential_id: string; public_key: string; rp_id: string; name: string; transports: string[] };

/** `name`'s passkey (a new key of `key`'s) registered on host 1 with their code there, and its exported public part. */
async function registeredOnHost1(name: string, key: SoftAuthenticator): Promise<{ id: string; exported: Exported }> {
  const p = await h1.as(name, APPROVER);
  const { options } = await p.call('passkey.begin', {});
  await p.call('passkey.register', { response: key.create(options) as never, name: 'laptop', totp_code: await h1.codes.code(name) });
  const id = passkeyId(idOf(key));
  return { id, exported: await p.call('passkey.export', { passkey_id: id }) };
}

/** The console's answer to registration `id`, as the page posts it. */
const answer = (id: string, params: Record<string, unknown>) => consoleAccount.call('console.registration_response', { registration_id: id, ...params } as never);

before(async () => {
  port = await freePort();
  origin = `http://localhost:${port}`;
  // The hosts of one fleet share [passkeys]: the same RP ID and origins (here, host 2's console).
  const policy = `[passkeys]\nrp_id = "localhost"\norigins = ["${origin}"]\n\n[console]\nurl = "${origin}"\n`;
  [h1, h2] = await Promise.all([startWorld([], 'overlay', { policy }), startWorld([], 'overlay', { policy })]);
  consoleAccount = await h2.as('airlock-console', ['airlock-observer']);
  files = mkdtempSync(join(tmpdir(), 'airlock-existing-'));
  chmodSync(files, 0o755);
});
after(async () => {
  await Promise.all([h1?.close(), h2?.close()]);
  if (files) rmSync(files, { recursive: true, force: true });
});

describe('a passkey from another host, answered through the console: attacks', () => {
  let bobKey: SoftAuthenticator;
  let bob: Principal;
  let id: string;
  let exported: Exported;

  before(async () => {
    bobKey = new SoftAuthenticator(origin);
    ({ id, exported } = await registeredOnHost1('bob', bobKey));
    bob = await h2.as('bob', APPROVER);
  });

  test('the page is told it is a passkey from another host: get() options for that credential alone, and which one', async () => {
    const begun = await bob.call('passkey.begin', { existing: exported });
    assert.equal(begun.existing, true);
    const reg = await consoleAccount.call('console.registration_options', { registration_id: begun.registration_id });
    assert.equal(reg.existing, true);
    assert.deepEqual(reg.existing_passkey, { passkey_id: id, name: 'laptop' });
    assert.equal(reg.check, begun.check);
    const allowed = (reg.options.allowCredentials as Array<{ id: string }>).map((c) => c.id);
    assert.deepEqual(allowed, [exported.credential_id]);
    assert.equal(reg.options.userVerification, 'required');
    assert.equal('user' in reg.options, false, 'not creation options');
    // The name is the file's text: the page is given it escaped (a right-to-left override shows as such).
    const renamed = await bob.call('passkey.begin', { existing: { ...exported, name: 'lap\u202etop' } });
    const renamedReg = await consoleAccount.call('console.registration_options', { registration_id: renamed.registration_id });
    assert.equal(renamedReg.existing_passkey?.name, 'lap\\u202etop');
    // A registration of a new passkey says nothing of the kind.
    const fresh = await bob.call('passkey.begin', {});
    const freshReg = await consoleAccount.call('console.registration_options', { registration_id: fresh.registration_id });
    assert.equal(freshReg.existing, undefined);
    assert.equal(freshReg.existing_passkey, undefined);
  });

  test('an assertion sent to a registration of a new passkey is refused, and so is both or neither', async () => {
    const fresh = await bob.call('passkey.begin', {});
    const reg = await consoleAccount.call('console.registration_options', { registration_id: fresh.registration_id });
    await rejectsWith(answer(fresh.registration_id, { existing_assertion: bobKey.assert(bobKey.credentials[0]!, String(reg.options.challenge)) }), 'validation', 'bad_registration');
    const other = new SoftAuthenticator(origin);
    await rejectsWith(answer(fresh.registration_id, { response: other.create(reg.options), existing_assertion: bobKey.assert(bobKey.credentials[0]!, String(reg.options.challenge)) }), 'validation', 'bad_registration');
    await rejectsWith(answer(fresh.registration_id, {}), 'validation', 'bad_registration');
    await rejectsWith(bob.call('passkey.register', {}), 'authorization', 'registration_not_ready');
  });

  test('each forgery is refused with its code and parks nothing', async () => {
    const begun = await bob.call('passkey.begin', { existing: exported });
    const reg = await consoleAccount.call('console.registration_options', { registration_id: begun.registration_id });
    const challenge = String(reg.options.challenge);
    const good = () => bobKey.get(reg.options);
    const refused = async (what: string, params: Record<string, unknown>, category: string, code: string) => {
      await rejectsWith(answer(begun.registration_id, params), category, code).catch((e: Error) => assert.fail(`${what}: ${e.message}`));
    };
    // Another credential (another key of bob's, never registered anywhere): not the passkey this registration names.
    const other = new SoftAuthenticator(origin);
    other.create({ rp: { id: 'localhost' }, user: { id: 'eA' }, challenge: 'eA' });
    await refused('another credential', { existing_assertion: other.assert(other.credentials[0]!, challenge) }, 'authorization', 'bad_registration');
    // Its signature under bob's credential id: it does not verify with bob's public key.
    const underHisId = { ...other.assert(other.credentials[0]!, challenge), id: exported.credential_id, rawId: exported.credential_id };
    await refused("another key's signature under the credential's id", { existing_assertion: underHisId }, 'authorization', 'bad_registration');
    // bob's own assertion with its signature changed.
    const a = good() as { response: { signature: string } };
    const sig = Buffer.from(a.response.signature, 'base64url');
    sig[sig.length - 1]! ^= 0x01;
    await refused('a forged signature', { existing_assertion: { ...a, response: { ...a.response, signature: sig.toString('base64url') } } }, 'authorization', 'bad_registration');
    await refused('a wrong origin', { existing_assertion: bobKey.get(reg.options, { origin: 'https://evil.example' }) }, 'authorization', 'bad_registration');
    await refused('a wrong RP ID', { existing_assertion: bobKey.get(reg.options, { rpId: 'evil.example' }) }, 'authorization', 'bad_registration');
    await refused('no user verification', { existing_assertion: bobKey.get(reg.options, { userVerified: false }) }, 'authorization', 'bad_registration');
    await refused('another challenge', { existing_assertion: bobKey.get(reg.options, { challenge: 'bm90IHRoaXMgb25l' }) }, 'authorization', 'bad_registration');
    await refused('a rawId that is not its id', { existing_assertion: { ...good(), rawId: idOf(other) } }, 'authorization', 'bad_registration');
    // A new credential sent to a registration of a passkey from another host.
    await refused('a new credential', { response: other.create({ rp: { id: 'localhost' }, user: { id: 'eA' }, challenge }) }, 'validation', 'bad_registration');
    await refused('both', { response: other.create({ rp: { id: 'localhost' }, user: { id: 'eA' }, challenge }), existing_assertion: good() }, 'validation', 'bad_registration');
    await refused('neither', {}, 'validation', 'bad_registration');
    // Nothing was parked: the terminal has nothing to finish, and the log has no passkey of bob's on host 2.
    await rejectsWith(bob.call('passkey.register', { totp_code: await h2.codes.code('bob') }), 'authorization', 'registration_not_ready');
    assert.equal(logOf(h2).filter((e) => e.kind === 'passkey_registered').length, 0);
  });

  test('a good answer parks once; the terminal stores it with the code there; the entry says existing; the passkey then approves a change on host 2', async () => {
    const begun = await bob.call('passkey.begin', { existing: exported });
    const reg = await consoleAccount.call('console.registration_options', { registration_id: begun.registration_id });
    const parked = await answer(begun.registration_id, { existing_assertion: bobKey.get(reg.options) });
    assert.equal(parked.approver, begun.approver);
    assert.equal(parked.check, begun.check);
    // Answered once: another good assertion, or another page's, is refused.
    await rejectsWith(answer(begun.registration_id, { existing_assertion: bobKey.get(reg.options) }), 'validation', 'registration_answered');
    // The terminal finishes it without `existing_assertion`, with bob's code on host 2 (his first passkey there).
    await rejectsWith(bob.call('passkey.register', {}), 'authorization', 'totp_required');
    const done = await bob.call('passkey.register', { name: 'laptop', totp_code: await h2.codes.code('bob') });
    assert.equal(done.passkey_id, id, 'the same passkey, by its id');
    const entry = logOf(h2).find((e) => e.kind === 'passkey_registered');
    assert.deepEqual({ ...entry?.details }, { approver: done.approver, passkey_id: id, name: 'laptop', rp_id: 'localhost', factor: 'totp', existing: true });
    await rejectsWith(consoleAccount.call('console.registration_options', { registration_id: begun.registration_id }), 'authorization', 'registration_not_begun');
    await rejectsWith(bob.call('passkey.begin', { existing: exported }), 'validation', 'passkey_exists');

    // It approves: the agent's High change on host 2, with an assertion over that transaction's challenge.
    const agent = await h2.as('agent', ['airlock-admin']);
    const p = await agent.call('preview', { action_name: 'CreateUser', params: { user: 'fromfleet' } });
    const { options } = await bob.call('passkey.approval_options', { transaction_id: p.transaction_id });
    const granted = await bob.call('approve', { transaction_id: p.transaction_id, preview_digest: p.preview_digest, assertion: bobKey.get(options) as never });
    assert.match('receipt' in granted ? granted.receipt : '', /^alr1\./);
    const approval = logOf(h2).find((e) => e.kind === 'approval_granted' && e.transaction_id === p.transaction_id);
    assert.equal(approval?.details.second_factor, 'passkey');
  });

  test('a person who holds a passkey on host 2 vouches with it on the page; the terminal then needs no code', async () => {
    const carolKey = new SoftAuthenticator(origin);
    const { id, exported } = await registeredOnHost1('carol', carolKey);
    const carol = await h2.as('carol', APPROVER);
    // Her first passkey on host 2, a new one.
    const held = new SoftAuthenticator(origin);
    const first = await carol.call('passkey.begin', {});
    await carol.call('passkey.register', { response: held.create(first.options) as never, name: 'phone', totp_code: await h2.codes.code('carol') });

    const begun = await carol.call('passkey.begin', { existing: exported });
    const reg = await consoleAccount.call('console.registration_options', { registration_id: begun.registration_id });
    assert.ok(reg.proof, 'the page is asked for a proof by a passkey she holds here');
    await rejectsWith(answer(begun.registration_id, { existing_assertion: carolKey.get(reg.options) }), 'authorization', 'passkey_proof_required');
    // The passkey being registered cannot vouch for itself: it is not one she holds here.
    await rejectsWith(answer(begun.registration_id, { existing_assertion: carolKey.get(reg.options), assertion: carolKey.assert(carolKey.credentials[0]!, String(reg.proof!.challenge)) }), 'authorization', 'unknown_passkey');
    await answer(begun.registration_id, { existing_assertion: carolKey.get(reg.options), assertion: held.get(reg.proof!) });
    const done = await carol.call('passkey.register', {});
    assert.equal(done.passkey_id, id);
    const entry = logOf(h2).find((e) => e.kind === 'passkey_registered' && e.details.passkey_id === id);
    assert.equal(entry?.details.factor, 'passkey');
    assert.equal(entry?.details.existing, true);
  });
});

describe('airlock passkey add --existing FILE: the file is checked before anything is begun', () => {
  test('malformed, too large, unreadable, or of another RP ID: exit 5, saying why', async () => {
    const dave = await h2.as('dave', APPROVER);
    const write = (name: string, text: string) => {
      const path = join(files, name);
      writeFileSync(path, text, { mode: 0o644 });
      return path;
    };
    const good: Exported = { credential_id: 'AAAA', public_key: 'AAAA', rp_id: 'localhost', name: 'laptop', transports: [] };
    const cases: Array<[string, string, RegExp]> = [
      [write('not-json', 'credential_id: x'), 'not JSON', /bad_registration/],
      [write('shape', JSON.stringify({ ...good, extra: 1 })), 'not an exported passkey', /bad_registration/],
      [write('missing', JSON.stringify({ credential_id: 'AAAA' })), 'public_key', /bad_registration/],
      [write('large', JSON.stringify({ ...good, name: 'x'.repeat(20_000) })), 'larger than 16 KiB', /bad_registration/],
      [join(files, 'absent'), 'cannot read it', /bad_registration/],
      [files, 'not a regular file', /bad_registration/],
      // `-`: standard input, here empty.
      ['-', 'standard input: not JSON', /bad_registration/],
      [write('evil-rp', JSON.stringify({ ...good, rp_id: 'evil.example' })), 'RP ID evil.example', /rp_id_mismatch/],
    ];
    for (const [path, says, code] of cases) {
      const r = await airlockAs(dave.identity, h2.d.socket, ['passkey', 'add', '--existing', path]);
      assert.equal(r.code, 5, `${path}: ${r.stderr}`);
      assert.ok(r.stderr.includes(says), `${path}: ${r.stderr}`);
      assert.match(r.stderr, code);
      assert.doesNotMatch(r.stderr, /register#/, 'no link: nothing was begun for a bad file');
    }
  });
});

describe('in a browser: alice adds the passkey of host 1 to host 2 with `airlock passkey add --existing`', { skip: existsSync(CHROMIUM) ? false : `${CHROMIUM} is missing` }, () => {
  let server: ChildProcess | undefined;
  let browser: Browser | undefined;
  let page: Page;
  after(async () => {
    await browser?.close();
    if (server?.pid) process.kill(-server.pid, 'SIGTERM');
  });

  test('export on host 1 (the real CLI as alice), add --existing on host 2 left polling, Chromium signs on host 2\'s console with the same key, her code there finishes it', async () => {
    const aliceKey = new SoftAuthenticator(origin);
    const { id } = await registeredOnHost1('alice', aliceKey);
    const alice1 = await h1.as('alice', APPROVER);
    const printed = await airlockAs(alice1.identity, h1.d.socket, ['passkey', 'export', id]);
    assert.equal(printed.code, 0, printed.stderr);
    const file = join(files, 'laptop.passkey.json');
    writeFileSync(file, printed.stdout, { mode: 0o644 });

    const alice2 = await h2.as('alice', APPROVER);
    server = await startConsole(consoleAccount.identity, h2.d.socket, port, origin);
    const opened = await browserWithPasskeys(CHROMIUM);
    ({ browser, page } = opened);
    const { cdp, authenticatorId } = opened;
    // Her browser holds the SAME private key as the passkey registered on host 1.
    const cred = aliceKey.credentials[0]!;
    await holdCredential(cdp, authenticatorId, cred);

    const r = await passkeyAdd(
      alice2.identity,
      h2.d.socket,
      ['--existing', file, '--name', 'laptop'],
      async (link, check) => {
        assert.ok(link.startsWith(`${origin}/register#`), link);
        await openRegistration(page, link, check, /^alice\(uid \d+\)$/);
        assert.equal(await page.textContent('#reg-title'), 'Add a passkey from another host');
        assert.equal(await page.textContent('#reg-button'), 'Sign with that passkey');
        assert.ok((await page.textContent('#reg-existing'))!.includes(`laptop (${id})`), 'the page says which passkey signs');
        await page.click('#reg-button');
        await visible(page, '#notice:not([hidden])');
        assert.match((await page.textContent('#notice'))!, /type the code from your authenticator app at your terminal/);
      },
      () => h2.codes.code('alice'),
    );
    assert.equal(r.status, 0, r.out);
    assert.match(r.out, /sign with the passkey you registered on another host \(laptop\): nothing new is made/);
    assert.match(r.out, new RegExp(`registered passkey laptop \\(${id}\\) for alice\\(uid \\d+\\)`));

    // Host 2 holds the same passkey: its id exports the same credential, and the log says it came from another host.
    const there = await alice2.call('passkey.export', { passkey_id: id });
    assert.equal(there.credential_id, cred.id.toString('base64url'));
    const entry = logOf(h2).find((e) => e.kind === 'passkey_registered' && e.details.passkey_id === id);
    assert.equal(entry?.details.existing, true);
    assert.equal(entry?.details.factor, 'totp');
    // And it signs her in to host 2's console.
    await page.goto(`${origin}/`);
    await page.waitForSelector('#view-signin:not([hidden])');
    await page.click('#signin-button');
    await visible(page, '#view-inbox:not([hidden])');
    assert.match((await page.textContent('#who'))!, /^alice\(uid \d+\)$/);
  });
});
