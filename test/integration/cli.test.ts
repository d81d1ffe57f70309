/**
 * The `airlock` command line against a real daemon, run as real Unix users
 * (setpriv): help, --json output, exit codes per error category, the terminal
 * requirement for approval, the match code both sides see, execute with a receipt, install
 * and doctor.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startWorld, type World } from '../support/world.js';
import { CLI } from '../support/cli.js';
import { typeAt, type Answer } from '../support/terminal.js';
import type { UnixIdentity, Principal } from '../../src/sandbox/principal.js';
import type { ApprovalGrant } from '../../src/protocol/messages.js';
import { readSqliteLog } from '../../src/audit/log-file.js';
import { livePreview } from '../../src/protocol/compacted.js';
import { matchCode } from '../../src/protocol/match-code.js';

let w: World;
let agent: Principal, human: Principal, bea: Principal, cleo: Principal, observer: Principal;
before(async () => {
  // Human approval of reads too, as the flow tests need; cronbot proposes only.
  w = await startWorld([], 'overlay', { policy: 'reads = "ask"\nunattended = ["cronbot"]\n' });
  agent = await w.as('agent', ['airlock-admin']);
  // alice is the person most tests show; bea and cleo approve where who approves does not matter,
  // so no test waits for alice's next code (two a TOTP step) because an earlier one spent hers.
  [human, bea, cleo] = await w.approvers(['alice', 'bea', 'cleo'], ['airlock-admin', 'airlock-approvers']);
  observer = await w.as('olga', ['airlock-observer']);
});
after(() => w?.close());

/** Runs `airlock --socket S ARGS` as the given Unix user, with no controlling terminal. */
function cliAs(who: UnixIdentity | null, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const node = [process.execPath, '--import', import.meta.resolve('tsx'), CLI, '--socket', w.d.socket, ...args];
  const argv = who ? ['/usr/bin/setpriv', `--reuid=${who.uid}`, `--regid=${who.gid}`, `--groups=${who.groups.join(',')}`, '--', ...node] : node;
  return new Promise((resolve) => {
    const child = spawn(argv[0]!, argv.slice(1), { cwd: '/', detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: '/usr/bin:/bin', HOME: '/tmp', NO_COLOR: '1' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code: code ?? 128, stdout, stderr }));
  });
}

/** The CLI as `who` with a streaming stderr, no terminal. */
function spawnCli(who: UnixIdentity, args: string[]) {
  const argv = ['/usr/bin/setpriv', `--reuid=${who.uid}`, `--regid=${who.gid}`, `--groups=${who.groups.join(',')}`, '--', process.execPath, '--import', import.meta.resolve('tsx'), CLI, '--socket', w.d.socket, ...args];
  const child = spawn(argv[0]!, argv.slice(1), { cwd: '/', detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: '/usr/bin:/bin', HOME: '/tmp', NO_COLOR: '1' } });
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  child.stdout.resume();
  return { stderr: child.stderr, err: () => err, done: new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? 128))) };
}

/** `airlock --socket S ARGS` as `who` at a real pseudo-terminal; with `stdoutTo`, the command's stdout goes to that file instead. */
function atTerminal(who: UnixIdentity, args: string[], answers: Answer[], opts: { stdoutTo?: string } = {}): Promise<{ code: number; out: string }> {
  const inner = `/usr/bin/setpriv --reuid=${who.uid} --regid=${who.gid} --groups=${who.groups.join(',')} -- ${process.execPath} --import ${import.meta.resolve('tsx')} ${CLI} --socket ${w.d.socket} ${args.join(' ')}${opts.stdoutTo ? ` > ${opts.stdoutTo}` : ''}`;
  return typeAt(inner, answers);
}

describe('airlock CLI', () => {
  test('--help teaches the flow and the exit codes', async () => {
    const r = await cliAs(null, ['--help']);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /airlock approve tx_\.\.\. +# as yourself, no sudo/);
    assert.doesNotMatch(r.stdout, /sudo airlock approve/);
    assert.match(r.stdout, /Exit codes/);
    for (const cmd of ['actions', 'describe', 'preview', 'approve', 'execute', 'run', 'history', 'audit', 'doctor', 'install', 'uninstall', 'totp', 'demo', 'daemon']) {
      assert.match(r.stdout, new RegExp(`\\n  ${cmd}\\b`), `--help lists ${cmd}`);
    }
  });

  test('totp enroll at a terminal: QR code and secret on the terminal only, a first code confirms, codes are not echoed, --json holds no secret', async () => {
    const carol = await w.as('carol', ['airlock-admin', 'airlock-approvers'], { enrol: false });
    const dir = mkdtempSync(join(tmpdir(), 'airlock-cli-totp-'));
    try {
      const outFile = join(dir, 'stdout.json');
      let secret = '';
      let typed = '';
      const r = await atTerminal(carol.identity, ['totp', 'enroll', '--json'], [
        [
          'First code from the app',
          (tty) => {
            secret = /secret\s+([A-Z2-7]{32})/.exec(tty)![1]!;
            w.codes.add('carol', secret);
            typed = w.codes.freshCode('carol')!;
            return typed;
          },
        ],
      ], { stdoutTo: outFile });
      assert.equal(r.code, 0, r.out);
      assert.match(r.out, /[▀▄█]{10}/, 'a QR code drawn with block characters, on the terminal');
      assert.ok(!r.out.includes(typed), 'the code typed is not echoed');
      const printed = readFileSync(outFile, 'utf8');
      assert.ok(!printed.includes(secret), 'stdout never carries the secret');
      const j = JSON.parse(printed) as { approver: string; user: string; state: string };
      assert.match(j.approver, /^carol\(uid \d+\)$/);
      // The host has approvers: carol's first code proves her secret, and another approver vouches.
      assert.deepEqual([j.user, j.state], ['carol', 'awaiting_approval']);
      const check = (j as { check?: string }).check ?? '';
      assert.match(check, /^[A-Z2-7]{4}-[A-Z2-7]{4}$/, 'the check code carol reads out');
      const own = await cliAs(carol.identity, ['totp', 'approve', '--user', 'carol', '--check', check, '--json']);
      assert.equal(JSON.parse(own.stdout).error.code, 'approve_own_enrolment', own.stdout);
      const vouched = await atTerminal(bea.identity, ['totp', 'approve', '--user', 'carol', '--check', check.toLowerCase()], [['Code from your authenticator app', () => w.codes.code('bea')]]);
      assert.equal(vouched.code, 0, vouched.out);
      assert.match(vouched.out, /approved\S* carol\(uid \d+\): their second factor counts from now on/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // Without a terminal nothing is enrolled; root is told that a person enrols their own factor.
    const noTty = await cliAs(carol.identity, ['totp', 'enroll']);
    assert.equal(noTty.code, 3);
    assert.match(noTty.stderr, /needs a person at a terminal/);
    const asRoot = await cliAs(null, ['totp', 'enroll', '--user', 'alice', '--json']);
    assert.equal(asRoot.code, 3);
    assert.equal(JSON.parse(asRoot.stdout).error.code, 'enrol_as_yourself');
    assert.match(JSON.parse(asRoot.stdout).error.message, /alice enrols with `airlock totp enroll`/);
    // Replacing a factor asks for a code from the current one first.
    let replaced = '';
    const again = await atTerminal(human.identity, ['totp', 'enroll'], [
      ['Code from your authenticator app', () => w.codes.code('alice')],
      [
        'First code from the app',
        (tty) => {
          replaced = /secret\s+([A-Z2-7]{32})/.exec(tty)![1]!;
          w.codes.add('alice', replaced);
          return w.codes.freshCode('alice')!;
        },
      ],
    ]);
    assert.equal(again.code, 0, again.out);
    assert.match(again.out, /enrolled alice\(uid \d+\)/);
    // Another admin approver resets a factor through sudo, with their own code asked at their terminal; not root alone.
    const notRoot = await cliAs(carol.identity, ['totp', 'reset', '--user', 'carol', '--json']);
    assert.equal(notRoot.code, 3);
    assert.equal(JSON.parse(notRoot.stdout).error.code, 'root_only');
    const nobody = await cliAs(null, ['totp', 'reset', '--user', 'carol', '--json']);
    assert.equal(JSON.parse(nobody.stdout).error.code, 'no_person');
    // Root in alice's login session (as after `sudo` there): the kernel's login uid names her.
    const reset = await typeAt(`printf %s ${human.identity.uid} > /proc/self/loginuid && exec ${process.execPath} --import ${import.meta.resolve('tsx')} ${CLI} --socket ${w.d.socket} totp reset --user carol --json`, [['Code from your authenticator app', () => w.codes.code('alice')]]);
    assert.equal(reset.code, 0, reset.out);
    assert.match(reset.out, /"factor": true/);
    const help = await cliAs(null, ['totp', '--help']);
    assert.match(help.stdout, /enroll/);
    assert.match(help.stdout, /reset/);
  });

  test('policy check explains or refuses a file; policy show names the digest; inbox lists proposals; token new prints a token and its entry', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'airlock-cli-policy-'));
    chmodSync(dir, 0o755); // the observer reads the files it checks
    try {
      const good = join(dir, 'good.toml');
      writeFileSync(good, '[[rule]]\nid = "svc"\naction = "RestartService"\nparams = { unit = "nginx.service" }\ncooldown_minutes = 5\ndaily_cap = 10\n');
      const ok = await cliAs(observer.identity, ['policy', 'check', '--file', good, '--json']);
      assert.equal(ok.code, 0, ok.stderr);
      const report = JSON.parse(ok.stdout) as { lines: string[]; warnings: string[] };
      assert.ok(report.lines.some((l) => l.startsWith('rule svc: approves RestartService when unit = "nginx.service"')));
      assert.ok(report.warnings.some((w) => /makes the host run programs/.test(w)));
      const bad = join(dir, 'bad.toml');
      writeFileSync(bad, '[[rule]]\nid = "x"\naction = "CreateUser"\nparams = { user = "bob" }\ncooldown_minutes = 0\ndaily_cap = 1\n');
      const refused = await cliAs(observer.identity, ['policy', 'check', '--file', bad]);
      assert.equal(refused.code, 5);
      assert.match(refused.stderr, /rules approve medium at most/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const shown = JSON.parse((await cliAs(observer.identity, ['policy', 'show', '--json'])).stdout) as { digest: string; reads: string; unattended: string[] };
    assert.deepEqual([shown.reads, shown.unattended], ['ask', ['cronbot']]);
    assert.match(shown.digest, /^sha256:[0-9a-f]{64}$/);
    const cron = await w.as('cronbot', ['airlock-dev']);
    const proposal = JSON.parse((await cliAs(cron.identity, ['preview', 'CreateGroup', '--param', 'group=nightly', '--json'])).stdout) as { transaction_id: string; unattended?: boolean };
    assert.equal(proposal.unattended, true);
    const inbox = JSON.parse((await cliAs(human.identity, ['inbox', '--json'])).stdout) as Array<{ transaction_id: string }>;
    assert.ok(inbox.some((t) => t.transaction_id === proposal.transaction_id));
    assert.equal((await cliAs(observer.identity, ['inbox'])).code, 3, 'the inbox is for approvers and admins');
    const t = JSON.parse((await cliAs(observer.identity, ['token', 'new', 'ci-runner', '--role', 'dev', '--unattended', '--json'])).stdout) as { token: string; entry: string };
    assert.match(t.token, /^[A-Za-z0-9_-]{43}$/);
    assert.ok(t.entry.includes(`sha256 = "${createHash('sha256').update(t.token).digest('hex')}"`));
    assert.ok(t.entry.includes('unattended = true') && t.entry.includes('role = "dev"'));
  });

  test('actions --json and describe --json as an observer', async () => {
    const r = await cliAs(observer.identity, ['actions', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const list = JSON.parse(r.stdout) as { name: string; risk: string }[];
    assert.ok(list.length >= 200, `${list.length} actions`); // the catalogue issue asks for 200 or more
    assert.ok(list.some((a) => a.name === 'AddAuthorizedKey' && a.risk === 'high'));
    const d = JSON.parse((await cliAs(observer.identity, ['describe', 'UserInfo', '--json'])).stdout);
    assert.equal(d.params_schema.properties.user.type, 'string');
    assert.equal(d.params_schema.additionalProperties, false);
  });

  test('actions and describe with no daemon: the catalogue it was built with, saying what is unknown', async () => {
    const online = await cliAs(observer.identity, ['actions', '--json']);
    assert.doesNotMatch(online.stderr, /note/, 'with a daemon, its answer and no note');
    const withDaemon = JSON.parse(online.stdout) as Array<Record<string, unknown>>;
    const down = ['--socket', '/nonexistent/airlock.sock'];
    const r = await cliAs(observer.identity, [...down, 'actions', '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /cannot reach the Airlock daemon at \/nonexistent\/airlock\.sock/);
    assert.match(r.stderr, /whether this host supports each action, and any risk its policy raises, are unknown/);
    const without = JSON.parse(r.stdout) as Array<Record<string, unknown>>;
    assert.ok(without.every((a) => a.supported_here === null), 'support on this host is unknown, not guessed');
    // This world's policy raises no risk: apart from the host's support, the daemon says the same.
    const hostless = (list: Array<Record<string, unknown>>) => list.map(({ supported_here: _, ...rest }) => rest);
    assert.deepEqual(hostless(without), hostless(withDaemon));

    const users = await cliAs(observer.identity, [...down, 'actions', '--family', 'users']);
    assert.equal(users.code, 0, users.stderr);
    assert.match(users.stdout, /^users {2}\S/, 'the family is a header');
    assert.match(users.stdout, /\n {2}UserInfo +low +observer/);
    assert.doesNotMatch(users.stdout, /HostInfo/);
    const d = await cliAs(observer.identity, [...down, 'describe', 'UserInfo']);
    assert.equal(d.code, 0, d.stderr);
    assert.match(d.stdout, /^UserInfo \(users\)/);
    assert.match(d.stdout, /risk and role are the catalogue's \(this host's policy may raise them\); support on this host is unknown without the daemon/);
    assert.match(d.stdout, /"pattern": /);
    const dj = JSON.parse((await cliAs(observer.identity, [...down, 'describe', 'UserInfo', '--json'])).stdout);
    assert.equal(dj.params_schema.properties.user.type, 'string');
    assert.equal(dj.supported_here, null);
    const unknown = await cliAs(observer.identity, [...down, 'describe', 'NoSuchThing']);
    assert.equal(unknown.code, 5);
    assert.match(unknown.stderr, /validation\/unknown_action/);
  });

  test('exit codes follow the error category', async () => {
    assert.equal((await cliAs(observer.identity, ['preview', 'CreateUser', '--param', 'user=x'])).code, 3, 'authorization');
    const bad = await cliAs(agent.identity, ['preview', 'UserInfo', '--param', 'user=$(id)']);
    assert.equal(bad.code, 5, 'validation');
    assert.match(bad.stderr, /validation\/bad_params/);
    assert.match(bad.stderr, /next/);
    assert.equal((await cliAs(agent.identity, ['preview', 'NoSuchThing'])).code, 5);
    assert.equal((await cliAs(agent.identity, ['preview'])).code, 2, 'usage');
    const down = await cliAs(agent.identity, ['--socket', '/nonexistent/airlock.sock', 'history']);
    assert.equal(down.code, 7, 'transient: daemon unreachable');
    assert.match(down.stderr, /start it with/);
    const json = await cliAs(observer.identity, ['preview', 'CreateUser', '--param', 'user=x', '--json']);
    assert.equal(JSON.parse(json.stdout).error.code, 'role_too_low');
  });

  test('preview, approval (which needs a terminal), then execute with the receipt', async () => {
    const p = JSON.parse((await cliAs(agent.identity, ['preview', 'UserInfo', '--param', 'user=root', '--json'])).stdout);
    assert.match(p.transaction_id, /^tx_[0-9a-f]{24}$/);
    const noTty = await cliAs(human.identity, ['approve', p.transaction_id]);
    assert.equal(noTty.code, 3);
    assert.match(noTty.stderr, /needs a person at a terminal/);
    const g = await w.approve(human, p);
    const r = await cliAs(agent.identity, ['execute', p.transaction_id, '--receipt', g.receipt, '--json']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const res = JSON.parse(r.stdout);
    assert.equal(res.state, 'Succeeded');
    assert.ok(res.output.some((l: string) => l.includes('uid=0(root)')));
    const again = await cliAs(agent.identity, ['execute', p.transaction_id, '--receipt', g.receipt]);
    assert.equal(again.code, 4, 'stale approval');
    const h = JSON.parse((await cliAs(observer.identity, ['history', '--status', 'Succeeded', '--action', 'UserInfo', '--json'])).stdout);
    assert.ok(h.some((t: { transaction_id: string }) => t.transaction_id === p.transaction_id));
    assert.equal((await cliAs(observer.identity, ['history', '--since', 'yesterday'])).code, 5);
  });

  test('approve at a terminal: the code first (not echoed), then high risk needs the action name typed', async () => {
    await w.d.box.run('/usr/sbin/useradd', ['-m', '--', 'deploy']);
    const key = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHgNYKxJ0d5Ck2i9nE2kGv0yVb4o1m0T1m2n3b4v5c6d cli@test';
    const p = JSON.parse((await cliAs(agent.identity, ['preview', 'AddAuthorizedKey', '--param', 'user=deploy', '--param', `key=${key}`, '--json'])).stdout);
    // The match code: beside the digest in --json, in the requester's view of the preview, and in the approver's prompt.
    assert.equal(p.match_code, matchCode(p.preview_digest));
    assert.deepEqual(Object.keys(p).slice(Object.keys(p).indexOf('preview_digest'), Object.keys(p).indexOf('preview_digest') + 2), ['preview_digest', 'match_code']);
    const shown = await cliAs(agent.identity, ['show', p.transaction_id]);
    assert.ok(shown.stdout.includes(`match code: ${p.match_code} (`), shown.stdout + shown.stderr);
    assert.equal(JSON.parse((await cliAs(agent.identity, ['show', p.transaction_id, '--json'])).stdout).preview.match_code, p.match_code);
    const code = await w.codes.code('bea');
    const refused = await atTerminal(bea.identity, ['approve', p.transaction_id], [['Code from your authenticator app', code], ['Type the action name', 'yes']]);
    assert.equal(refused.code, 3, refused.out);
    assert.ok(refused.out.includes(`match code: ${p.match_code} (`) && refused.out.indexOf(`match code: ${p.match_code}`) < refused.out.indexOf('Code from your authenticator app'), `the approver sees the same code before typing theirs:\n${refused.out}`);
    assert.match(refused.out, /Authorize ssh-ed25519 key SHA256:[A-Za-z0-9+/]{43} \(cli@test\) for deploy/);
    assert.match(refused.out, /not approved: the action name was not typed/);
    assert.ok(refused.out.indexOf('Code from your authenticator app') < refused.out.indexOf('Type the action name'), 'the factor is asked before the action name');
    // A mistyped code may be typed again; neither is echoed.
    const fresh = await w.codes.code('bea');
    const wrong = String((Number(fresh) + 1) % 1_000_000).padStart(6, '0');
    const ok = await atTerminal(bea.identity, ['approve', p.transaction_id], [['Code from your authenticator app', wrong], ['Type the action name', 'AddAuthorizedKey'], ['Code from your authenticator app', fresh]]);
    assert.equal(ok.code, 0, ok.out);
    assert.match(ok.out, /that code is wrong/);
    assert.ok(!ok.out.includes(fresh) && !ok.out.includes(wrong), 'codes are not echoed');
    const receipt = /receipt (alr1\.[A-Za-z0-9_-]+)/.exec(ok.out)![1]!;
    const r = await cliAs(agent.identity, ['execute', p.transaction_id, '--receipt', receipt, '--json']);
    assert.equal(JSON.parse(r.stdout).state, 'Succeeded');
    assert.match((await w.d.box.readFile('/home/deploy/.ssh/authorized_keys'))!, /cli@test/);
  });

  test('approve at a terminal: a code already used says to wait for the next one and asks again', async () => {
    const [p1, p2] = [0, 1].map(() => cliAs(agent.identity, ['preview', 'CreateUser', '--param', `user=reuse${Math.random().toString(36).slice(2, 8)}`, '--json']));
    const first = JSON.parse((await p1!).stdout);
    const second = JSON.parse((await p2!).stdout);
    const used = await w.codes.code('alice');
    await human.call('approve', { transaction_id: first.transaction_id, preview_digest: first.preview_digest, totp_code: used });
    const ok = await atTerminal(human.identity, ['approve', second.transaction_id], [['Code from your authenticator app', used], ['Type the action name', 'CreateUser'], ['Code from your authenticator app', () => w.codes.code('alice')]]);
    assert.equal(ok.code, 0, ok.out);
    assert.match(ok.out, /that code was already used: wait for the next code \(in \d+ s\)/);
    assert.doesNotMatch(ok.out, /that code is wrong/);
    assert.match(ok.out, /approved/);
  });

  test('the approver prompt refuses at once (exit 3) when the daemon would refuse, before asking anything', async () => {
    const p = JSON.parse((await cliAs(agent.identity, ['preview', 'CreateGroup', '--param', 'group=g1', '--json'])).stdout);
    const notApprover = await atTerminal(agent.identity, ['approve', p.transaction_id], []);
    assert.equal(notApprover.code, 3, notApprover.out);
    assert.match(notApprover.out, /not_an_approver/);
    assert.doesNotMatch(notApprover.out, /Approve CreateGroup|Code from/);
    const observerTry = await atTerminal(observer.identity, ['approve', p.transaction_id], []);
    assert.equal(observerTry.code, 3, observerTry.out);
    assert.doesNotMatch(observerTry.out, /Approve CreateGroup|Code from/);
    // Own request, no factor enrolled: refused at once, saying how to enrol or give the agent its own account.
    const solo = await w.as('sam', ['airlock-admin', 'airlock-approvers'], { enrol: false });
    const own = JSON.parse((await cliAs(solo.identity, ['preview', 'CreateGroup', '--param', 'group=g2', '--json'])).stdout);
    const self = await atTerminal(solo.identity, ['approve', own.transaction_id], []);
    assert.equal(self.code, 3, self.out);
    assert.match(self.out, /self_approval_needs_factor/);
    assert.match(self.out, /airlock totp enroll/);
    assert.doesNotMatch(self.out, /Approve CreateGroup|Code from/);
  });

  test('run, for a person whose agent runs as them: preview, their own approval with their code, execute; no sudo', async () => {
    const code = await w.codes.code('cleo');
    const r = await atTerminal(cleo.identity, ['run', 'CreateGroup', '--param', 'group=ops1'], [['Code from your authenticator app', code], ['Approve CreateGroup', 'y']]);
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /requested under your own account/);
    assert.doesNotMatch(r.out, /sudo/);
    assert.match((await w.d.box.readFile('/etc/group'))!, /^ops1:/m);
  });

  test('run, for someone who may not approve: it waits for another approver and then executes', async () => {
    const child = spawnCli(agent.identity, ['run', 'CreateGroup', '--param', 'group=ops2']);
    const id = await new Promise<string>((resolve) => child.stderr.on('data', () => /waiting for another approver/.test(child.err()) && resolve(/airlock approve (tx_[0-9a-f]{24})/.exec(child.err())![1]!)));
    const p = await human.call('transaction.get', { transaction_id: id });
    await w.approve(cleo, livePreview(p));
    assert.equal(await child.done, 0, child.err());
    assert.match(child.err(), /approved by cleo\(uid \d+\)/);
    assert.match((await w.d.box.readFile('/etc/group'))!, /^ops2:/m);
  });

  test('inbox run re-previews a proposal, and the log links the new transaction to it', async () => {
    const cron = await w.as('cronbot', ['airlock-dev']);
    const proposal = await cron.call('preview', { action_name: 'CreateGroup', params: { group: 'ops3' } });
    assert.equal(proposal.unattended, true);
    const code = await w.codes.code('bea');
    const r = await atTerminal(bea.identity, ['inbox', 'run', proposal.transaction_id], [['Code from your authenticator app', code], ['Approve CreateGroup', 'y']]);
    assert.equal(r.code, 0, r.out);
    const entries = [...readSqliteLog(w.d.files.db)].map((e) => JSON.parse(e.body) as { kind: string; transaction_id: string; details: Record<string, unknown> });
    const linked = entries.find((e) => e.kind === 'preview' && e.details.from_proposal === proposal.transaction_id);
    assert.ok(linked, 'the new preview names its proposal');
    const superseded = entries.find((e) => e.kind === 'canceled' && e.transaction_id === proposal.transaction_id);
    assert.equal(superseded?.details.superseded_by, linked!.transaction_id);
    assert.ok(entries.some((e) => e.kind === 'outcome' && e.transaction_id === linked!.transaction_id && e.details.state === 'Succeeded'));
  });

  test('doctor reports who you are to the daemon', async () => {
    const r = await cliAs(agent.identity, ['doctor', '--json']);
    const rep = JSON.parse(r.stdout);
    const daemon = rep.checks.find((c: { name: string }) => c.name === 'daemon');
    assert.equal(daemon.ok, true);
    assert.match(daemon.detail, /agent \(uid \d+\), role admin/);
  });

  test('install (inside the throwaway host) creates groups, directories, unit and tmpfiles', async () => {
    const r = await w.d.box.run(process.execPath, ['--import', import.meta.resolve('tsx'), CLI, 'install', '--no-start', '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).ok, true);
    const group = (await w.d.box.readFile('/etc/group'))!;
    for (const g of ['airlock-observer', 'airlock-dev', 'airlock-admin', 'airlock-boot', 'airlock-approvers']) assert.match(group, new RegExp(`^${g}:`, 'm'));
    const unit = (await w.d.box.readFile('/etc/systemd/system/airlock.service'))!;
    assert.match(unit, /ExecStart=.*airlock\.js daemon/);
    assert.match(unit, /NoNewPrivileges=yes/);
    assert.match((await w.d.box.readFile('/etc/tmpfiles.d/airlock.conf'))!, /\/run\/airlock 0755/);
    // The web console: its own account (no shell, no home) and a hardened unit, not enabled.
    assert.match((await w.d.box.readFile('/etc/passwd'))!, /^airlock-console:x:\d+:\d+::\/nonexistent:\/usr\/sbin\/nologin$/m);
    assert.match(group, /^airlock-observer:x:\d+:(.*,)?airlock-console(,|$)/m);
    const consoleUnit = (await w.d.box.readFile('/etc/systemd/system/airlock-console.service'))!;
    for (const line of ['User=airlock-console', 'NoNewPrivileges=yes', 'ProtectSystem=strict', 'ProtectHome=yes', 'PrivateTmp=yes', 'CapabilityBoundingSet=', 'RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6']) assert.ok(consoleUnit.split('\n').includes(line), line);
    assert.match(consoleUnit, /ExecStart=.*airlock\.js console$/m);
    assert.equal((await w.d.box.run('/usr/bin/stat', ['-c', '%a', '/var/lib/airlock'])).stdout.trim(), '700');
    const un = await w.d.box.run(process.execPath, ['--import', import.meta.resolve('tsx'), CLI, 'uninstall', '--json']);
    assert.equal(un.code, 0, un.stderr);
    assert.equal(await w.d.box.readFile('/etc/systemd/system/airlock.service'), null);
    assert.equal(await w.d.box.readFile('/etc/systemd/system/airlock-console.service'), null);
    assert.ok((await w.d.box.readFile('/etc/group'))!.includes('airlock-approvers:'), 'groups are kept without --purge');
  });
});
