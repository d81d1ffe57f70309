/**
 * One passkey assertion approves a fleet plan (approve.fleet), against two real daemons on two
 * throwaway hosts, with real Unix users on each: alice registers a passkey on host 1, exports
 * it, and registers the same credential on host 2 (its assertion over host 2's fresh challenge,
 * and her code there). The relay's account previews on each host; one assertion by alice over
 * the sorted list of both entries approves both, carried by the relay (no approver): each host's
 * log names alice, the fleet's digest, its size and the carrier. Attacks: the list without host
 * 2's entry, a changed digest, another pending transaction of host 2 put in, a replay, another
 * person's passkey, a forged signature, a wrong origin, a deadline that is not the host's, a
 * passkey from another RP ID; each refusal is typed and recorded with host 2's transaction.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readSqliteLog } from '../../src/audit/log-file.js';
import { fleetChallenge, passkeyId, type FleetEntry } from '../../src/protocol/passkey.js';
import type { PreviewEnvelope } from '../../src/protocol/messages.js';
import type { Principal } from '../../src/sandbox/principal.js';
import { spawnSync } from 'node:child_process';
import { CLI } from '../support/cli.js';
import { SoftAuthenticator } from '../support/soft-authenticator.js';
import { rejectsWith, startWorld, type World } from '../support/world.js';

const APPROVER = ['airlock-admin', 'airlock-approvers'];
type Entry = { kind: string; transaction_id: string | null; principal: { user: string; via?: string } | null; details: Record<string, unknown> };

interface Host {
  name: string;
  w: World;
  relay: Principal;
  alice: Principal;
}
let h1: Host, h2: Host;
const aliceKey = new SoftAuthenticator();
const bobKey = new SoftAuthenticator();
const aliceCred = () => aliceKey.credentials[0]!;

/** `airlock ARGS` as `who` against host `h`'s daemon, no terminal. */
function cliAs(h: Host, who: Principal, args: string[]) {
  const id = who.identity;
  const argv = ['/usr/bin/setpriv', `--reuid=${id.uid}`, `--regid=${id.gid}`, `--groups=${id.groups.join(',')}`, '--', process.execPath, '--import', import.meta.resolve('tsx'), CLI, '--socket', h.w.d.socket, ...args];
  const r = spawnSync(argv[0]!, argv.slice(1), { cwd: '/', encoding: 'utf8', env: { PATH: '/usr/bin:/bin', HOME: '/tmp', NO_COLOR: '1' } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const logOf = (h: Host) => [...readSqliteLog(h.w.d.files.db)].map((e) => JSON.parse(e.body) as Entry);

async function host(name: string): Promise<Host> {
  const w = await startWorld();
  // The relay's account on this host: what `airlock proxy` runs as, no approver.
  const relay = await w.as('relay', ['airlock-admin']);
  const alice = await w.as('alice', APPROVER);
  return { name, w, relay, alice };
}

let n = 0;
/** A High preview by the relay's account on `h` (CreateUser is High), and its fleet entry. */
async function previewOn(h: Host): Promise<{ p: PreviewEnvelope; entry: FleetEntry }> {
  const p = await h.relay.call('preview', { action_name: 'CreateUser', params: { user: `fleet${n++}` } });
  const tx = await h.relay.call('transaction.get', { transaction_id: p.transaction_id });
  return { p, entry: { host: h.name, tx: p.transaction_id, preview_digest: p.preview_digest, expires_at: Date.parse(tx.expires_at) } };
}
const sign = (entries: FleetEntry[], key = aliceKey, cred = aliceCred(), c = {}) => key.assert(cred, fleetChallenge(entries), c) as never;
const carry = (h: Host, entries: FleetEntry[], assertion: never, by = h.relay) => by.call('approve.fleet', { entries, assertion });
const stateOf = async (h: Host, p: PreviewEnvelope) => (await h.relay.call('transaction.get', { transaction_id: p.transaction_id })).state;

before(async () => {
  [h1, h2] = await Promise.all([host('web-1'), host('web-2')]);
});
after(async () => {
  await Promise.all([h1?.w.close(), h2?.w.close()]);
});

describe('one passkey, two hosts', () => {
  test('alice registers a passkey on host 1, exports it, and registers the same credential on host 2 with its assertion and her code there', async () => {
    const { options } = await h1.alice.call('passkey.begin', {});
    await h1.alice.call('passkey.register', { response: aliceKey.create(options) as never, name: 'laptop', totp_code: await h1.w.codes.code('alice') });
    const id = passkeyId(Buffer.from(aliceCred().id).toString('base64url'));
    const exported = await h1.alice.call('passkey.export', { passkey_id: id });
    assert.equal(exported.rp_id, 'localhost');
    // `airlock passkey export ID` prints the same, as JSON; an id of no passkey of hers exits 5.
    const printed = cliAs(h1, h1.alice, ['passkey', 'export', id]);
    assert.equal(printed.code, 0, printed.stderr);
    assert.deepEqual(JSON.parse(printed.stdout), exported);
    const none = cliAs(h1, h1.alice, ['passkey', 'export', '0'.repeat(16)]);
    assert.equal(none.code, 5, none.stderr);
    assert.match(none.stderr, /no_such_passkey|holds no passkey/);
    assert.equal(exported.name, 'laptop');
    // Only one's own passkeys are exported; the relay (no approver) exports nothing.
    await rejectsWith(h1.relay.call('passkey.export', { passkey_id: id }), 'authorization');

    // Host 2: another RP ID is refused before anything is signed.
    await rejectsWith(h2.alice.call('passkey.begin', { existing: { ...exported, rp_id: 'evil.example' } }), 'validation', 'rp_id_mismatch');
    // The credential must sign the fresh challenge itself: a new key of the same person's does not, nor an assertion over another challenge.
    let begun = await h2.alice.call('passkey.begin', { existing: exported });
    assert.equal(begun.existing, true);
    const other = new SoftAuthenticator();
    other.create({ rp: { id: 'localhost' }, user: { id: 'x' }, challenge: 'x' });
    await rejectsWith(h2.alice.call('passkey.register', { existing_assertion: other.assert(other.credentials[0]!, String(begun.options.challenge)) as never, totp_code: await h2.w.codes.code('alice') }), 'authorization', 'bad_registration');
    begun = await h2.alice.call('passkey.begin', { existing: exported });
    await rejectsWith(h2.alice.call('passkey.register', { existing_assertion: aliceKey.assert(aliceCred(), 'bm90IHRoaXMgb25l') as never, totp_code: await h2.w.codes.code('alice') }), 'authorization', 'bad_registration');
    // Without her current factor on host 2: refused (the challenge is spent with the try).
    begun = await h2.alice.call('passkey.begin', { existing: exported });
    await rejectsWith(h2.alice.call('passkey.register', { existing_assertion: aliceKey.get(begun.options) as never }), 'authorization', 'totp_required');
    begun = await h2.alice.call('passkey.begin', { existing: exported });
    const r = await h2.alice.call('passkey.register', { existing_assertion: aliceKey.get(begun.options) as never, name: 'laptop', totp_code: await h2.w.codes.code('alice') });
    assert.equal(r.passkey_id, id);
    const registered = logOf(h2).find((e) => e.kind === 'passkey_registered');
    assert.deepEqual({ ...registered?.details }, { approver: r.approver, passkey_id: id, name: 'laptop', rp_id: 'localhost', factor: 'totp', existing: true });
    // Twice: it is registered already.
    await rejectsWith(h2.alice.call('passkey.begin', { existing: exported }), 'validation', 'passkey_exists');
  });

  test('one assertion over both entries, carried by the relay, approves both; each host records alice, the fleet and the carrier', async () => {
    const [a, b] = [await previewOn(h1), await previewOn(h2)];
    // The relay lists them in any order: the challenge sorts them.
    const entries = [b.entry, a.entry];
    const assertion = sign([a.entry, b.entry]);
    const r1 = await carry(h1, entries, assertion);
    const r2 = await carry(h2, entries, assertion);
    assert.match(r1.approved_by, /^alice\(uid \d+\)$/);
    assert.match(r2.approved_by, /^alice\(uid \d+\)$/);
    assert.equal(r1.fleet_digest, fleetChallenge(entries));
    assert.equal(r2.fleet_entries, 2);
    assert.equal('receipt' in r1, false, 'the carrier gets no receipt');
    for (const [h, x] of [[h1, a], [h2, b]] as const) {
      // The requester collects the receipt as after any approval, and executes.
      const waited = await h.relay.call('transaction.wait', { transaction_id: x.p.transaction_id, timeout_ms: 5000 });
      assert.equal(waited.outcome, 'approved');
      assert.match(waited.outcome === 'approved' ? waited.approved_by : '', /^alice\(uid \d+\)$/);
      const done = await h.relay.call('execute', { transaction_id: x.p.transaction_id, action_name: 'CreateUser', params: x.p.params, receipt: waited.outcome === 'approved' ? waited.receipt : '' });
      assert.equal(done.state, 'Succeeded');
      const granted = logOf(h).find((e) => e.kind === 'approval_granted' && e.transaction_id === x.p.transaction_id)!;
      assert.equal(granted.principal?.user, 'alice', 'the approver is the person whose passkey signed, not the relay');
      assert.equal(granted.principal?.via, 'fleet');
      assert.equal(granted.details.second_factor, 'passkey');
      assert.equal(granted.details.fleet_digest, fleetChallenge(entries));
      assert.equal(granted.details.fleet_entries, 2);
      assert.match(String(granted.details.fleet_carrier), /^relay\(uid \d+\)$/);
    }
  });

  test('a carrier with no role beyond observer carries it too: the signature approves, and alice is recorded', async () => {
    const watcher = await h1.w.as('watcher', ['airlock-observer']);
    const a = await previewOn(h1);
    const r = await carry(h1, [a.entry], sign([a.entry]), watcher);
    assert.match(r.approved_by, /^alice\(uid \d+\)$/);
    const granted = logOf(h1).find((e) => e.kind === 'approval_granted' && e.transaction_id === a.p.transaction_id)!;
    assert.equal(granted.principal?.user, 'alice');
    assert.match(String(granted.details.fleet_carrier), /^watcher\(uid \d+\)$/);
  });
});

describe('attacks', () => {
  test('the list without host 2: host 2 is not in it, and host 1 sees another list than the one signed', async () => {
    const [a, b] = [await previewOn(h1), await previewOn(h2)];
    const both = sign([a.entry, b.entry]);
    await rejectsWith(carry(h1, [a.entry], both), 'authorization', 'bad_assertion');
    // A list signed without host 2's entry approves nothing there.
    await rejectsWith(carry(h2, [a.entry], sign([a.entry])), 'authorization', 'not_in_fleet');
    assert.equal(await stateOf(h1, a.p), 'Previewed');
    assert.equal(await stateOf(h2, b.p), 'Previewed');
  });

  test('a changed digest: refused as stale, whether the list was changed after signing or signed so', async () => {
    const [a, b] = [await previewOn(h1), await previewOn(h2)];
    const changed = { ...b.entry, preview_digest: 'f'.repeat(64) };
    await rejectsWith(carry(h2, [a.entry, changed], sign([a.entry, b.entry])), 'stale_approval', 'digest_mismatch');
    await rejectsWith(carry(h2, [a.entry, changed], sign([a.entry, changed])), 'stale_approval', 'digest_mismatch');
    // Host 1's own entry is right, but the list it is sent is not the one signed.
    await rejectsWith(carry(h1, [a.entry, changed], sign([a.entry, b.entry])), 'authorization', 'bad_assertion');
    assert.equal(await stateOf(h2, b.p), 'Previewed');
    // The refusal is in host 2's signed log, with host 2's transaction, under the carrier's name.
    const refused = logOf(h2).filter((e) => e.kind === 'refused' && e.details.method === 'approve.fleet' && e.details.code === 'digest_mismatch');
    assert.ok(refused.some((e) => e.transaction_id === b.p.transaction_id && e.principal?.user === 'relay'), JSON.stringify(refused));
  });

  test("an entry swapped to another pending transaction of host 2 is another list: the signature does not cover it", async () => {
    const [a, b, b2] = [await previewOn(h1), await previewOn(h2), await previewOn(h2)];
    const assertion = sign([a.entry, b.entry]);
    const swapped = [a.entry, { ...b2.entry, host: 'web-2' }];
    await rejectsWith(carry(h2, swapped, assertion), 'authorization', 'bad_assertion');
    assert.equal(await stateOf(h2, b2.p), 'Previewed');
    // Both of host 2's transactions in one list: refused, one assertion approves one transaction per host.
    await rejectsWith(carry(h2, [b.entry, { ...b2.entry, host: 'web-2b' }], sign([b.entry, { ...b2.entry, host: 'web-2b' }])), 'validation', 'bad_fleet');
    // A host named twice never gets that far.
    await rejectsWith(carry(h2, [b.entry, b2.entry], assertion), 'validation', 'bad_fleet');
    assert.equal(await stateOf(h2, b.p), 'Previewed');
  });

  test('a replayed assertion approves nothing more', async () => {
    const [a, b] = [await previewOn(h1), await previewOn(h2)];
    const entries = [a.entry, b.entry];
    const assertion = sign(entries);
    await carry(h2, entries, assertion);
    await rejectsWith(carry(h2, entries, assertion), 'stale_approval', 'not_pending');
    // Host 1 accepts it once (its own entry), then not again.
    await carry(h1, entries, assertion);
    await rejectsWith(carry(h1, entries, assertion), 'stale_approval', 'not_pending');
  });

  test("another person's passkey, one this host does not know, a forged signature, a wrong origin: refused", async () => {
    const bob = await h2.w.as('bob', APPROVER);
    const { options } = await bob.call('passkey.begin', {});
    await bob.call('passkey.register', { response: bobKey.create(options) as never, totp_code: await h2.w.codes.code('bob') });
    const [a, b] = [await previewOn(h1), await previewOn(h2)];
    const entries = [a.entry, b.entry];
    // Bob's passkey is not registered on host 1.
    await rejectsWith(carry(h1, entries, sign(entries, bobKey, bobKey.credentials[0]!)), 'authorization', 'unknown_passkey');
    // Bob's signature under alice's credential id: it does not verify with her key.
    const forged = { ...(sign(entries, bobKey, bobKey.credentials[0]!) as Record<string, unknown>), id: Buffer.from(aliceCred().id).toString('base64url'), rawId: Buffer.from(aliceCred().id).toString('base64url') };
    await rejectsWith(carry(h2, entries, forged as never), 'authorization', 'bad_assertion');
    await rejectsWith(carry(h2, entries, sign(entries, aliceKey, aliceCred(), { origin: 'https://evil.example' })), 'authorization', 'bad_assertion');
    await rejectsWith(carry(h2, entries, sign(entries, aliceKey, aliceCred(), { rpId: 'evil.example' })), 'authorization', 'bad_assertion');
    await rejectsWith(carry(h2, entries, sign(entries, aliceKey, aliceCred(), { userVerified: false })), 'authorization', 'bad_assertion');
    assert.equal(await stateOf(h2, b.p), 'Previewed');
    // Bob may approve host 2's entry with his own passkey: he is an approver there. The log names him.
    const r = await carry(h2, entries, sign(entries, bobKey, bobKey.credentials[0]!));
    assert.match(r.approved_by, /^bob\(uid \d+\)$/);
  });

  test("a deadline that is not the host's is refused", async () => {
    const [a, b] = [await previewOn(h1), await previewOn(h2)];
    const later = { ...b.entry, expires_at: b.entry.expires_at + 3_600_000 };
    await rejectsWith(carry(h2, [a.entry, later], sign([a.entry, later])), 'stale_approval', 'deadline_mismatch');
    assert.equal(await stateOf(h2, b.p), 'Previewed');
  });
});

describe('a preview past its deadline', () => {
  test('is refused as expired, the assertion over it notwithstanding', async () => {
    const short = await startWorld(['--approval-ttl', '0.03', '--sweep-interval', '600']); // 1.8 s to approve
    try {
      const h3: Host = { name: 'web-3', w: short, relay: await short.as('relay', ['airlock-admin']), alice: await short.as('alice', APPROVER) };
      const exported = await h1.alice.call('passkey.export', { passkey_id: passkeyId(Buffer.from(aliceCred().id).toString('base64url')) });
      const begun = await h3.alice.call('passkey.begin', { existing: exported });
      await h3.alice.call('passkey.register', { existing_assertion: aliceKey.get(begun.options) as never, totp_code: await short.codes.code('alice') });
      const c = await previewOn(h3);
      await new Promise((r) => setTimeout(r, Math.max(0, c.entry.expires_at - Date.now()) + 200));
      await rejectsWith(carry(h3, [c.entry], sign([c.entry])), 'stale_approval', 'preview_expired');
    } finally {
      await short.close();
    }
  });
});
