/**
 * Every "who may do this" decision (src/daemon/authz.ts), table-driven, without root
 * or a daemon: the method table, previews, reads, cancels, executes and approvals,
 * and how a root peer is attributed to the person behind it.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { autoApprovalLane, decide, isRequester, mayApprove, mayDeny, mayReset, mayCall, mayCancel, mayExecute, mayPreview, mayRead, mayWait, type Caller, type TxFacts } from '../../src/daemon/authz.js';
import { rootPeerOf, principalName, type Person } from '../../src/daemon/identity.js';
import { METHODS, methodParams } from '../../src/protocol/methods.js';
import { DOOR } from '../../src/daemon/door.js';
import type { Role } from '../../src/protocol/risk.js';

const person = (uid: number, user: string, role: Role | null, approver: boolean, via: Person['via'] = 'self'): Person => ({ uid, user, role, approver, via });
const unix = (uid: number, user: string, role: Role, approver: boolean, extra: Partial<Caller> = {}): Caller => ({ uid, user, role, approver, pid: 1, unattended: false, person: person(uid, user, role, approver), ...extra });

const agent = unix(1001, 'agent', 'admin', false);
const alice = unix(1002, 'alice', 'admin', true);
const dora = unix(1003, 'dora', 'dev', true);
const olga = unix(1004, 'olga', 'observer', false);
const cronjob = unix(1005, 'cronjob', 'admin', true, { unattended: true });
const token: Caller = { uid: -7, user: 'token:ci', role: 'admin', approver: false, pid: 0, via: 'token', unattended: false, person: null };
const rootService: Caller = { uid: 0, user: 'root', role: 'admin', approver: false, pid: 1, unattended: false, person: null, rootPeer: { sudoUid: null, loginUid: null, noPerson: 'a root process with no sudo user and no login uid (a system service)' } };
const aliceViaSudo: Caller = { uid: 0, user: 'root', role: 'admin', approver: true, pid: 1, unattended: false, person: person(1002, 'alice', 'admin', true, 'sudo'), rootPeer: { sudoUid: 1002, loginUid: 1002, noPerson: null } };
const bobViaSudo: Caller = { uid: 0, user: 'root', role: 'admin', approver: false, pid: 1, unattended: false, person: person(1006, 'bob', 'admin', false, 'sudo'), rootPeer: { sudoUid: 1006, loginUid: 1006, noPerson: null } };

const tx = (over: Partial<TxFacts> = {}): TxFacts => ({ id: 'tx_' + '0'.repeat(24), risk: 'medium', requesterUid: 1001, requesterName: 'agent', requesterPersonUid: 1001, unattended: false, unmask: false, ...over });

describe('the method table', () => {
  test('names every protocol method', () => {
    assert.deepEqual(Object.keys(DOOR).sort(), [...METHODS].sort());
  });
  const cases: Array<[string, Caller, (typeof METHODS)[number], string | null]> = [
    ['anyone lists actions', olga, 'actions.list', null],
    ['a token lists actions', token, 'actions.list', null],
    ['root with nobody behind it never reloads the policy', rootService, 'policy.reload', 'no_person'],
    ['alice, an admin approver, reloads it through sudo (with her factor)', aliceViaSudo, 'policy.reload', null],
    ['bob, an admin but no approver, does not reload it', bobViaSudo, 'policy.reload', 'not_an_admin_approver'],
    ['alice is not root', alice, 'policy.reload', 'root_only'],
    ['a token named uid 0 is still not root', { ...token, uid: 0 }, 'policy.reload', 'root_only'],
    ['a token never approves', token, 'approve', 'token_not_a_person'],
    ['root with nobody behind it never approves', rootService, 'approve', 'no_person'],
    ['alice via sudo may try to approve', aliceViaSudo, 'approve', null],
    ['the inbox is for reviewers', olga, 'inbox', 'not_an_approver'],
    ['an admin sees the inbox', agent, 'inbox', null],
    ['alice enrols her own factor', alice, 'totp.enroll', null],
    ['alice through sudo enrols hers', aliceViaSudo, 'totp.enroll', null],
    ['root with nobody behind it has no factor to enrol', rootService, 'totp.enroll', 'enrol_as_yourself'],
    ['a token has no factor to enrol', token, 'totp.confirm', 'enrol_as_yourself'],
    ['the agent is no approver, so enrols nothing', agent, 'totp.enroll', 'not_an_approver'],
    ['only root resets a factor', alice, 'totp.reset', 'root_only'],
    ['root with nobody behind it resets nobody\'s factor', rootService, 'totp.reset', 'no_person'],
    ['an admin approver through sudo may try to reset one', aliceViaSudo, 'totp.reset', null],
    ['anyone may ask to wait (then only the requester does)', olga, 'transaction.wait', null],
    ['a token may ask to wait for its own requests', token, 'transaction.wait', null],
    ['anyone with a role reads the signed log', olga, 'audit.entries', null],
    ['a token reads the signed log too', token, 'audit.entries', null],
    ['a token may ask to deny (then mayDeny refuses it)', token, 'deny', null],
    ['root with nobody behind it may deny (the safe direction)', rootService, 'deny', null],
    ['alice via sudo may try to deny', aliceViaSudo, 'deny', null],
    ['an admin person rotates keys', alice, 'keys.rotate', null],
    ['so does alice through sudo', aliceViaSudo, 'keys.rotate', null],
    ['a token never rotates keys, even an admin one', token, 'keys.rotate', 'token_not_a_person'],
    ['root with nobody behind it never rotates keys', rootService, 'keys.rotate', 'no_person'],
    ['a dev does not rotate keys', dora, 'keys.rotate', 'not_an_admin'],
    ['an unattended admin does not rotate keys', cronjob, 'keys.rotate', 'unattended_approver'],
  ];
  for (const [name, who, method, code] of cases) {
    test(name, () => {
      const d = mayCall(who, DOOR[method].access, method);
      assert.equal(d.ok ? null : d.refusal.code, code);
    });
  }
});

describe('previews, reads, cancels and executes', () => {
  test('preview needs the role the risk needs', () => {
    assert.equal(mayPreview(olga, 'ListUsers', 'low').ok, true);
    const d = mayPreview(olga, 'CreateGroup', 'medium');
    assert.equal(d.ok ? null : d.refusal.code, 'role_too_low');
    assert.equal(mayPreview(dora, 'CreateUser', 'high').ok, false);
  });
  test('the requester, approvers and admins read a transaction in full; others do not', () => {
    assert.equal(mayRead(agent, tx()).ok, true);
    assert.equal(mayRead(dora, tx()).ok, true);
    assert.equal(mayRead(olga, tx()).ok, false);
  });
  test('the requester or an admin approver cancels', () => {
    assert.equal(mayCancel(agent, tx()).ok, true);
    assert.equal(mayCancel(alice, tx()).ok, true);
    assert.equal(mayCancel(dora, tx()).ok, false);
  });
  test('only the requester executes, with the role for the risk stored at preview', () => {
    assert.equal(mayExecute(agent, tx({ risk: 'high' }), 'X').ok, true);
    const other = mayExecute(alice, tx(), 'X');
    assert.equal(other.ok ? null : other.refusal.code, 'not_the_requester');
    const demoted = mayExecute({ ...agent, role: 'observer' }, tx(), 'X');
    assert.equal(demoted.ok ? null : demoted.refusal.code, 'role_too_low');
  });
});

describe('approvals', () => {
  const cases: Array<[string, Caller, TxFacts, 'high' | 'medium', string | { factor: boolean; self: boolean }]> = [
    ['an approver approves a medium request of the agent without a factor', alice, tx(), 'high', { factor: false, self: false }],
    ['a high one needs the factor', alice, tx({ risk: 'high' }), 'high', { factor: true, self: false }],
    ['the policy can ask it from medium', alice, tx(), 'medium', { factor: true, self: false }],
    ['the agent is no approver', agent, tx(), 'high', 'not_an_approver'],
    ['a dev approver cannot approve high', dora, tx({ risk: 'high' }), 'high', 'role_too_low'],
    ['a self-approval needs the factor even at low risk', alice, tx({ risk: 'low', requesterUid: 1002, requesterPersonUid: 1002 }), 'high', { factor: true, self: true }],
    ['alice via sudo approving her own request: self, factor', aliceViaSudo, tx({ risk: 'low', requesterUid: 1002, requesterPersonUid: 1002 }), 'high', { factor: true, self: true }],
    ['alice approving what root did for her through sudo: self, factor', alice, tx({ requesterUid: 0, requesterName: 'root', requesterPersonUid: 1002 }), 'high', { factor: true, self: true }],
    ['alice via sudo approving the agent: judged as alice', aliceViaSudo, tx(), 'high', { factor: false, self: false }],
    ['bob via sudo is not an approver, root or not', bobViaSudo, tx(), 'high', 'not_an_approver'],
    ['root with nobody behind it approves nothing', rootService, tx(), 'high', 'no_person'],
    ['a token approves nothing', token, tx(), 'high', 'token_not_a_person'],
    ['an unattended approver approves nothing', cronjob, tx(), 'high', 'unattended_approver'],
    ['an unattended proposal is never approved', alice, tx({ unattended: true }), 'high', 'unattended_proposal'],
  ];
  for (const [name, who, facts, from, want] of cases) {
    test(name, () => {
      const d = mayApprove(who, facts, from);
      if (typeof want === 'string') assert.equal(d.ok ? 'ok' : d.refusal.code, want);
      else {
        assert.ok(d.ok, d.ok ? '' : d.refusal.message);
        assert.deepEqual({ factor: d.secondFactor, self: d.selfApproval }, want);
      }
    });
  }
});

describe('waits: only the requester, refused as execute refuses', () => {
  const mine = tx({ requesterUid: 0, requesterName: 'root', requesterPersonUid: 1002 });
  const cases: Array<[string, Caller, TxFacts, string | null]> = [
    ['the requester waits for its own request', agent, tx(), null],
    ['the requester waits even with a role too low to execute it (it learns the outcome, the receipt serves it alone)', { ...agent, role: 'observer' }, tx({ risk: 'high' }), null],
    ['an approver is not the requester: no receipt of another principal', alice, tx(), 'not_the_requester'],
    ['another agent is not the requester', olga, tx(), 'not_the_requester'],
    ['a token with the same uid number is not the requester', { ...token, uid: 1001 }, tx({ requesterUid: -7 }), 'not_the_requester'],
    ['alice through sudo waits for what root asked for her', aliceViaSudo, mine, null],
    ["bob through sudo does not wait for alice's root request", bobViaSudo, mine, 'not_the_requester'],
    ['root with nobody behind it does not wait for a person’s root request', rootService, mine, 'not_the_requester'],
  ];
  for (const [name, who, facts, code] of cases) {
    test(name, () => {
      const d = mayWait(who, facts);
      assert.equal(d.ok ? null : d.refusal.code, code);
    });
  }
  test("the refusal is execute's, word for word", () => {
    const w = mayWait(alice, tx());
    const e = mayExecute(alice, tx(), 'X');
    assert.ok(!w.ok && !e.ok);
    assert.deepEqual(w.refusal, e.refusal);
  });
});

describe('denials: the people who may approve, without the factor', () => {
  const cases: Array<[string, Caller, TxFacts, string | null]> = [
    ['an approver denies a medium request of the agent', alice, tx(), null],
    ['a high one too, with no code', alice, tx({ risk: 'high' }), null],
    ['her own request, with no code (refusing is the safe direction)', alice, tx({ risk: 'low', requesterUid: 1002, requesterPersonUid: 1002 }), null],
    ["an unattended principal's proposal may be denied (it is never approved)", alice, tx({ unattended: true }), null],
    ['alice via sudo is judged as alice', aliceViaSudo, tx(), null],
    ['the agent is no approver', agent, tx(), 'not_an_approver'],
    ['the agent cannot deny its own request either', agent, tx({ requesterUid: 1001 }), 'not_an_approver'],
    ['bob via sudo is not an approver', bobViaSudo, tx(), 'not_an_approver'],
    ['a dev approver cannot deny high', dora, tx({ risk: 'high' }), 'role_too_low'],
    ['a dev approver denies medium', dora, tx(), null],
    ['a token denies nothing', token, tx(), 'token_not_a_person'],
    ['root with nobody behind it denies (refusing only stops a request)', rootService, tx(), null],
    ['an unattended approver denies nothing', cronjob, tx(), 'unattended_approver'],
  ];
  for (const [name, who, facts, code] of cases) {
    test(name, () => {
      const d = mayDeny(who, facts);
      assert.equal(d.ok ? null : d.refusal.code, code);
    });
  }
  test('a refusal to deny says deny, not approve', () => {
    const d = mayDeny(agent, tx());
    assert.ok(!d.ok);
    assert.match(d.refusal.message, /may not deny/);
    assert.match(d.refusal.hint ?? '', /airlock deny tx_/);
  });
});

describe('the person behind a root peer', () => {
  const cases: Array<[string, Parameters<typeof rootPeerOf>[0], number | null, 'sudo' | 'login' | null]> = [
    ['sudo in a login session', { loginUid: 1002, sudoUid: '1002', sudoUser: 'alice', realUid: 0, savedUid: 0 }, 1002, 'sudo'],
    ['SUDO_UID with no login uid names nobody (systemd-run -E SUDO_UID=N, or sudo outside a login session)', { loginUid: -1, sudoUid: '1002', sudoUser: 'alice', realUid: 0, savedUid: 0 }, null, null],
    ['su in a login session (no sudo)', { loginUid: 1002, sudoUid: '', sudoUser: '', realUid: 0, savedUid: 0 }, 1002, 'login'],
    ['witnesses that disagree name nobody', { loginUid: 1002, sudoUid: '1006', sudoUser: 'bob', realUid: 0, savedUid: 0 }, null, null],
    ['a system service', { loginUid: -1, sudoUid: '', sudoUser: '', realUid: 0, savedUid: 0 }, null, null],
    ['root logged in as root', { loginUid: 0, sudoUid: '', sudoUser: '', realUid: 0, savedUid: 0 }, null, null],
    ['a malformed SUDO_UID names nobody', { loginUid: -1, sudoUid: '10x2', sudoUser: 'alice', realUid: 0, savedUid: 0 }, null, null],
    ['a malformed SUDO_UID does not agree with a login session either', { loginUid: 1002, sudoUid: '1002 ', sudoUser: 'alice', realUid: 0, savedUid: 0 }, null, null],
    ['no pidfd: nobody', null, null, null],
    ['a setuid-root program (real uid of its caller) names nobody, whatever its environment says', { loginUid: -1, sudoUid: '1002', sudoUser: 'alice', realUid: 1001, savedUid: 0 }, null, null],
  ];
  for (const [name, proc, uid, via] of cases) {
    test(name, () => {
      const r = rootPeerOf(proc);
      assert.equal(r.personUid, uid);
      assert.equal(r.via, via);
      assert.equal(r.rootPeer.noPerson === null, uid !== null);
    });
  }
  test('names read as the log records them', () => {
    assert.equal(principalName(aliceViaSudo), 'alice(uid 1002) via sudo');
    assert.equal(principalName(rootService), 'root(uid 0)');
    assert.equal(principalName(token), 'token:ci');
    assert.equal(principalName(alice), 'alice(uid 1002)');
  });
});

describe('which policy lane may approve without a person', () => {
  const read = { readOnly: true as const, sensitive: false, reachesNetwork: false };
  const cases: Array<[string, Caller, Parameters<typeof autoApprovalLane>[1], 'low' | 'medium', 'auto' | 'ask', 'reads' | 'rules' | null]> = [
    ['a non-sensitive low read: the reads rule', agent, read, 'low', 'auto', 'reads'],
    ['reads = "ask": only the exact rules', agent, read, 'low', 'ask', 'rules'],
    ['a sensitive read: only the exact rules', agent, { ...read, sensitive: true }, 'low', 'auto', 'rules'],
    ['a read the policy raised to medium: only the exact rules', agent, read, 'medium', 'auto', 'rules'],
    ['a network read from a token: only the exact rules', token, { ...read, reachesNetwork: true }, 'low', 'auto', 'rules'],
    ['a network read from a Unix user: the reads rule', agent, { ...read, reachesNetwork: true }, 'low', 'auto', 'reads'],
    ['an unattended principal: the reads rule still', cronjob, read, 'low', 'auto', 'reads'],
    ['an unattended principal, anything else: nobody', cronjob, { ...read, sensitive: true }, 'low', 'auto', null],
    ['a change: only the exact rules', agent, { readOnly: false as const, runsPrograms: false, rollback: { class: 'exact' as const } }, 'low', 'auto', 'rules'],
  ];
  for (const [name, who, action, risk, reads, want] of cases) test(name, () => assert.equal(autoApprovalLane(who, action, risk, reads), want));

  // A change whose preview says "no change" runs nothing: the daemon approves it, whoever asks and whatever its risk.
  const change = { readOnly: false as const, runsPrograms: false, rollback: { class: 'exact' as const } };
  for (const [name, who, risk, reads] of [
    ['a no-change change: the no-change rule', agent, 'low', 'auto'],
    ['a no-change change at High risk: the no-change rule still', agent, 'high', 'ask'],
    ['a no-change change by an unattended principal: the no-change rule', cronjob, 'medium', 'auto'],
    ['a no-change change from a token: the no-change rule', token, 'medium', 'ask'],
  ] as const) {
    test(name, () => assert.equal(autoApprovalLane(who, change, risk, reads, true), 'no_change'));
  }
  test('the no-change flag never widens a read: a sensitive read still waits for the exact rules', () => {
    assert.equal(autoApprovalLane(agent, { ...read, sensitive: true }, 'low', 'auto', true), 'rules');
    assert.equal(autoApprovalLane(cronjob, { ...read, sensitive: true }, 'low', 'auto', true), null);
  });
  test('without the flag a change is never in the no-change lane', () => {
    assert.equal(autoApprovalLane(agent, change, 'low', 'auto', false), 'rules');
    assert.equal(autoApprovalLane(cronjob, change, 'low', 'auto'), null);
  });
});

describe('resetting a factor, and root requesters', () => {
  const alicePerson = { uid: 1002, user: 'alice' };
  test('alice through sudo may not reset her own factor (her agent would then enrol its own)', () => {
    const d = mayReset(aliceViaSudo, alicePerson);
    assert.equal(d.ok ? null : d.refusal.code, 'reset_own_factor');
  });
  test("an admin approver through sudo resets someone else's; a non-approver does not; nor does root with nobody behind it", () => {
    assert.equal(mayReset(aliceViaSudo, { uid: 1003, user: 'dora' }).ok, true);
    const bob = mayReset(bobViaSudo, alicePerson);
    assert.equal(bob.ok ? null : bob.refusal.code, 'not_an_admin_approver');
    const nobody = mayReset(rootService, alicePerson);
    assert.equal(nobody.ok ? null : nobody.refusal.code, 'no_person');
    const approve = mayApprove(rootService, tx(), 'high');
    assert.equal(approve.ok ? null : approve.refusal.code, 'no_person');
    const notRoot = mayReset(alice, { uid: 1003, user: 'dora' });
    assert.equal(notRoot.ok ? null : notRoot.refusal.code, 'root_only');
  });
  test("one person's sudo request is not another's: root requesters are told apart by the person behind them", () => {
    const mine = tx({ requesterUid: 0, requesterName: 'root', requesterPersonUid: 1002 });
    assert.equal(isRequester(aliceViaSudo, mine), true);
    assert.equal(isRequester(bobViaSudo, mine), false);
    assert.equal(isRequester(rootService, mine), false);
    const e = mayExecute(bobViaSudo, mine, 'X');
    assert.equal(e.ok ? null : e.refusal.code, 'not_the_requester');
  });
  test('approving what root with nobody behind it requested takes the factor, at any risk', () => {
    const d = mayApprove(alice, tx({ risk: 'low', requesterUid: 0, requesterName: 'root', requesterPersonUid: null }), 'high');
    assert.ok(d.ok && d.secondFactor && !d.selfApproval);
  });
});

describe('the one ordered decision of the door (decide)', () => {
  const row = (m: (typeof METHODS)[number]) => DOOR[m];
  const code = (d: ReturnType<typeof decide>) => (d.ok ? null : d.refusal.code);
  test('access first: a token asking to approve is refused as a token, whatever the transaction says', () => {
    assert.equal(code(decide('approve', row('approve'), token, tx({ unattended: true }), 'high')), 'token_not_a_person');
    assert.equal(code(decide('approve', row('approve'), token, null, 'high')), 'token_not_a_person');
  });
  test('then the transaction rule, once the transaction is known', () => {
    assert.equal(code(decide('transaction.get', row('transaction.get'), olga, tx(), 'high')), 'not_yours');
    assert.equal(code(decide('execute', row('execute'), olga, tx(), 'high')), 'role_too_low');
    assert.equal(code(decide('transaction.wait', row('transaction.wait'), alice, tx(), 'high')), 'not_the_requester');
    assert.equal(code(decide('cancel', row('cancel'), dora, tx(), 'high')), 'not_yours');
    assert.equal(code(decide('deny', row('deny'), agent, tx(), 'high')), 'not_an_approver');
    assert.equal(code(decide('approve', row('approve'), alice, tx({ unattended: true }), 'high')), 'unattended_proposal');
  });
  test('with no transaction known yet, only the access is decided (the dispatcher then refuses the id)', () => {
    assert.equal(code(decide('transaction.get', row('transaction.get'), olga, null, 'high')), null);
  });
  test("an approver's verdict carries the factor and the person, as mayApprove decides them", () => {
    const d = decide('approve', row('approve'), alice, tx({ risk: 'high' }), 'high');
    assert.ok(d.ok && d.approval);
    assert.deepEqual({ factor: d.approval.secondFactor, self: d.approval.selfApproval, person: d.approval.person.user }, { factor: true, self: false, person: 'alice' });
  });
  test('every row names a transaction rule, and only methods that name a transaction have one besides none', () => {
    for (const m of METHODS) {
      const takesTx = methodParams(m).some((p) => p.name === 'transaction_id' && p.required);
      if (DOOR[m].tx !== 'none') assert.ok(takesTx, `${m} has rule ${DOOR[m].tx} but no transaction_id`);
    }
  });
});
