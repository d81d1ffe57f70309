/**
 * Who approves is a person: on the booted test bed (real sudo, real PAM, real su), a
 * root peer is attributed to the person whose PAM login session it runs in (the kernel's
 * audit login uid); SUDO_UID alone (a transient unit, sudo after su from a service) names
 * nobody; that person's own groups decide; a
 * person approving a request made under their own account needs their factor; a
 * root process with nobody behind it never approves; and the signed log names both.
 */
import { grantOf } from '../../src/client/client.js';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { rejectsWith, startWorld, type World } from '../support/world.js';
import { Principal, type UnixIdentity } from '../../src/sandbox/principal.js';
import { readSqliteLog } from '../../src/audit/log-file.js';
import type { PreviewEnvelope } from '../../src/protocol/messages.js';

let w: World;
let agent: Principal;
const ids = new Map<string, UnixIdentity>();
const spawned: Principal[] = [];

before(async () => {
  w = await startWorld([], 'testbed', { policy: 'reads = "ask"\nunattended = ["carol"]\n' });
  agent = await w.as('agent', ['airlock-dev']);
  await w.as('alice', ['airlock-admin', 'airlock-approvers']);
  await w.as('bob', ['airlock-admin']);
  await w.as('carol', ['airlock-dev']);
  for (const name of ['alice', 'bob', 'carol']) ids.set(name, await idOf(name));
  // The humans may use sudo without a password (as with a cached timestamp): the daemon must still see who they are.
  writeFileSync(`/proc/${w.d.box.pid}/root/etc/sudoers.d/airlock-test`, 'alice ALL=(root) NOPASSWD: ALL\nbob ALL=(root) NOPASSWD: ALL\ncarol ALL=(root) NOPASSWD: ALL\n', { mode: 0o440 });
});
after(async () => {
  for (const p of spawned) p.close();
  await w?.close();
});

async function idOf(name: string): Promise<UnixIdentity> {
  const r = await w.d.box.run('/usr/bin/id', ['--', name]);
  const uid = Number(/uid=(\d+)/.exec(r.stdout)![1]);
  const gid = Number(/gid=(\d+)/.exec(r.stdout)![1]);
  return { uid, gid, groups: [...r.stdout.matchAll(/(\d+)\(/g)].slice(2).map((m) => Number(m[1])) };
}

const inside = () => ['/usr/bin/nsenter', '-t', String(w.d.box.pid), '-a', '--'];
/** `sudo CLIENT` typed by `name` in a PAM login session (systemd runs the "login" PAM stack: pam_loginuid sets the login uid). */
function sudoInLoginSession(name: string): Principal {
  const p = Principal.spawnVia([...inside(), '/usr/bin/systemd-run', '--quiet', '--pipe', '--wait', '--collect', '-p', 'PAMName=login', `--uid=${name}`, '--', '/usr/bin/sudo', '-n', '--'], w.d.socket);
  spawned.push(p);
  return p;
}
/** `sudo CLIENT` by `name` in a session with no login uid (setpriv from a service, as an agent's own process tree would be). */
function sudoWithoutLogin(name: string): Principal {
  const id = ids.get(name)!;
  const p = Principal.spawnVia([...inside(), '/usr/bin/setpriv', `--reuid=${id.uid}`, `--regid=${id.gid}`, `--groups=${id.groups.join(',')}`, '--', '/usr/bin/sudo', '-n', '--'], w.d.socket);
  spawned.push(p);
  return p;
}
/** Root in a transient unit (no login uid) that sets SUDO_UID itself: what an attacker with a root launcher does. */
function transientUnitClaiming(name: string): Principal {
  const p = Principal.spawnVia([...inside(), '/usr/bin/systemd-run', '--quiet', '--pipe', '--wait', '--collect', '-E', `SUDO_UID=${ids.get(name)!.uid}`, '-E', `SUDO_USER=${name}`, '--'], w.d.socket);
  spawned.push(p);
  return p;
}
/** A root service runs `su NAME` (su's PAM stack sets no login uid here), and as NAME, sudo: SUDO_UID is NAME's, the login uid unset. */
function suThenSudo(name: string): Principal {
  const p = Principal.spawnVia([...inside(), '/usr/bin/su', '-s', '/usr/bin/sudo', name, '--', '-n', '--'], w.d.socket);
  spawned.push(p);
  return p;
}
/** A root process with neither: a system service. */
function rootService(): Principal {
  const p = Principal.spawnVia(inside(), w.d.socket);
  spawned.push(p);
  return p;
}

const preview = (who: Principal, action: string, params: Record<string, unknown>) => who.call('preview', { action_name: action, params });
const approveCall = async (who: Principal, p: PreviewEnvelope, code?: string) => grantOf(await who.call('approve', { transaction_id: p.transaction_id, preview_digest: p.preview_digest, ...(code ? { totp_code: code } : {}) }));
const entries = () => [...readSqliteLog(w.d.files.db)].map((e) => JSON.parse(e.body) as { kind: string; transaction_id: string | null; principal: { uid: number; user: string; person?: string; sudo_uid?: number | null; login_uid?: number | null } | null; details: Record<string, unknown> });
const grantEntry = (id: string) => entries().find((e) => e.kind === 'approval_granted' && e.transaction_id === id)!;

describe('an approval through sudo is the person behind it', () => {
  test('in a PAM login session: judged and recorded as alice via sudo', async () => {
    const p = await preview(agent, 'CreateGroup', { group: 'web1' });
    const alice = sudoInLoginSession('alice');
    const g = await approveCall(alice, p);
    const uid = ids.get('alice')!.uid;
    assert.equal(g.approved_by, `alice(uid ${uid}) via sudo`);
    const e = grantEntry(p.transaction_id);
    assert.equal(e.principal?.uid, 0);
    assert.equal(e.principal?.person, `alice(uid ${uid}) via sudo`);
    // Both witnesses, read through the peer's pidfd: the PAM session set the login uid.
    assert.equal(e.principal?.sudo_uid, uid);
    assert.equal(e.principal?.login_uid, uid);
    const r = await agent.call('execute', { transaction_id: p.transaction_id, action_name: p.action_name, params: p.params, receipt: g.receipt });
    assert.equal(r.state, 'Succeeded');
  });

  test('a root process with no sudo user and no login uid approves nothing, and the log says so', async () => {
    const p = await preview(agent, 'CreateGroup', { group: 'web6' });
    const svc = rootService();
    const e = await rejectsWith(approveCall(svc, p), 'authorization', 'no_person');
    assert.match(e.message, /no sudo user and no login uid/);
    // The refusal itself is a signed entry, naming the root peer and that nobody stood behind it.
    const refused = entries().filter((x) => x.kind === 'refused' && x.transaction_id === p.transaction_id);
    assert.equal(refused.length, 1);
    assert.match(refused[0]!.principal?.person ?? '', /^none: a root process with no sudo user and no login uid/);
    assert.equal(refused[0]!.details.code, 'no_person');
  });

  test('SUDO_UID with no login uid names nobody: a transient unit, sudo outside a login session, su then sudo', async () => {
    const p = await preview(agent, 'CreateGroup', { group: 'web2' });
    // Attack: root in a transient systemd-run unit (no login uid) claims SUDO_UID=alice.
    // Each is refused with what the daemon read through the peer's pidfd: alice's SUDO_UID, no login uid.
    // (Refusals of root for one reason within a minute fold into one signed entry: the messages tell them apart here.)
    const claim = new RegExp(`SUDO_UID ${ids.get('alice')!.uid} with no login uid`);
    for (const peer of [transientUnitClaiming('alice'), sudoWithoutLogin('alice'), suThenSudo('alice')]) {
      assert.match((await rejectsWith(approveCall(peer, p), 'authorization', 'no_person')).message, claim);
    }
    // Root with nobody behind it may still deny (refusing only stops a request).
    const d = await transientUnitClaiming('alice').call('deny', { transaction_id: p.transaction_id, reason: 'stopped by a root service' });
    assert.equal(d.state, 'Canceled');
  });

  test('a sudoer who is not an approver cannot approve, sudo or not', async () => {
    const p = await preview(agent, 'CreateGroup', { group: 'web3' });
    const e = await rejectsWith(approveCall(sudoInLoginSession('bob'), p), 'authorization', 'not_an_approver');
    assert.match(e.message, /sudo does not make anyone an approver/);
  });

  test("alice approving through sudo a request made under alice's own account is a self-approval: her factor, at any risk", async () => {
    // The agent runs as alice here (the one-user workstation) and has her cached sudo.
    const asAlice = await w.as('alice', ['airlock-admin', 'airlock-approvers']);
    const p = await preview(asAlice, 'CreateGroup', { group: 'web4' });
    assert.equal(p.risk, 'medium');
    const viaSudo = sudoInLoginSession('alice');
    await rejectsWith(approveCall(viaSudo, p), 'authorization', 'totp_required');
    const g = await approveCall(viaSudo, p, await w.codes.code('alice'));
    assert.equal(grantEntry(p.transaction_id).details.self_approval, true);
    assert.equal(grantEntry(p.transaction_id).details.second_factor, 'totp');
    assert.match(g.approved_by, /via sudo$/);
  });

  test('a request root makes through sudo for alice is hers: alice approving it as herself is a self-approval too', async () => {
    const rootAlice = sudoInLoginSession('alice');
    const p = await preview(rootAlice, 'CreateGroup', { group: 'web5' });
    assert.equal(p.requested_by, `alice(uid ${ids.get('alice')!.uid}) via sudo`);
    const asAlice = await w.as('alice', ['airlock-admin', 'airlock-approvers']);
    await rejectsWith(approveCall(asAlice, p), 'authorization', 'totp_required');
  });

  test("alice's sudo cannot reset alice's own factor (her agent would then enrol one of its own); root with nobody behind it, or a sudoer who is no admin approver, resets nobody's", async () => {
    await rejectsWith(sudoInLoginSession('alice').call('totp.reset', { user: 'alice', totp_code: await w.codes.code('alice') }), 'authorization', 'reset_own_factor');
    await rejectsWith(sudoInLoginSession('bob').call('totp.reset', { user: 'alice' }), 'authorization', 'not_an_admin_approver');
    await rejectsWith(transientUnitClaiming('alice').call('totp.reset', { user: 'alice' }), 'authorization', 'no_person');
    await rejectsWith(rootService().call('totp.reset', { user: 'alice' }), 'authorization', 'no_person');
    await rejectsWith(rootService().call('policy.reload'), 'authorization', 'no_person');
    // Her factor is still there: her own request still needs her code.
    const mine = await preview(await w.as('alice', ['airlock-admin', 'airlock-approvers']), 'CreateGroup', { group: 'web7' });
    await rejectsWith(approveCall(sudoInLoginSession('alice'), mine), 'authorization', 'totp_required');
  });

  test('an unattended user stays unattended through sudo: its preview is a proposal nobody approves', async () => {
    const p = await preview(sudoInLoginSession('carol'), 'CreateGroup', { group: 'web8' });
    assert.equal(p.unattended, true);
    await rejectsWith(approveCall(sudoInLoginSession('alice'), p), 'authorization', 'unattended_proposal');
  });
});
