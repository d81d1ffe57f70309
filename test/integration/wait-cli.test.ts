/**
 * The waiting commands of the `airlock` command line against a real daemon, run as real
 * Unix users: `deny`, `execute ID --wait`, `preview ... --wait` (who must approve, the wait,
 * the execution), their exit codes, and the progress line at a real terminal.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { startWorld, type World } from '../support/world.js';
import { CLI } from '../support/cli.js';
import { typeAt } from '../support/terminal.js';
import type { Principal, UnixIdentity } from '../../src/sandbox/principal.js';
import { livePreview } from '../../src/protocol/compacted.js';

let w: World;
let agent: Principal, alice: Principal, olga: Principal;
before(async () => {
  // The default policy: non-sensitive reads are approved by the daemon, changes wait for a person.
  w = await startWorld();
  agent = await w.as('agent', ['airlock-admin']);
  alice = await w.as('alice', ['airlock-admin', 'airlock-approvers']);
  olga = await w.as('olga', ['airlock-observer']);
});
after(() => w?.close());

const node = () => [process.execPath, '--import', import.meta.resolve('tsx'), CLI, '--socket', w.d.socket];
const setpriv = (who: UnixIdentity) => ['/usr/bin/setpriv', `--reuid=${who.uid}`, `--regid=${who.gid}`, `--groups=${who.groups.join(',')}`, '--'];

/** `airlock ARGS` as `who`, no terminal; `onStderr` sees stderr as it grows. */
function cliAs(who: UnixIdentity, args: string[], onStderr?: (err: string) => void): Promise<{ code: number; stdout: string; stderr: string }> {
  const argv = [...setpriv(who), ...node(), ...args];
  return new Promise((resolve) => {
    const child = spawn(argv[0]!, argv.slice(1), { cwd: '/', stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: '/usr/bin:/bin', HOME: '/tmp', NO_COLOR: '1' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => {
      stderr += d;
      onStderr?.(stderr);
    });
    child.on('close', (code) => resolve({ code: code ?? 128, stdout, stderr }));
  });
}
/** Calls fn once, the first time `re` matches stderr, with the match. */
const once = (re: RegExp, fn: (m: RegExpExecArray) => void) => {
  let done = false;
  return (err: string) => {
    const m = re.exec(err);
    if (m && !done) {
      done = true;
      fn(m);
    }
  };
};
const group = (() => {
  let n = 0;
  return () => `wcli${n++}`;
})();
const preview = (group: string) => agent.call('preview', { action_name: 'CreateGroup', params: { group } });

describe('airlock deny', () => {
  test('an approver denies with a reason; an agent may not; a second denial and a long reason are refused', async () => {
    const p = await preview(group());
    const notYou = await cliAs(agent.identity, ['deny', p.transaction_id, '--json']);
    assert.equal(notYou.code, 3, notYou.stdout);
    assert.equal(JSON.parse(notYou.stdout).error.code, 'not_an_approver');
    const long = await cliAs(alice.identity, ['deny', p.transaction_id, '--reason', 'x'.repeat(501)]);
    assert.equal(long.code, 5, long.stderr);
    assert.match(long.stderr, /validation\/bad_reason/);
    const r = await cliAs(alice.identity, ['deny', p.transaction_id, '--reason', 'not during the freeze']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`denied ${p.transaction_id} \\(CreateGroup: .*\\); it is Canceled`));
    assert.match(r.stdout, /the requester, agent\(uid \d+\), is told: not during the freeze/);
    const again = await cliAs(alice.identity, ['deny', p.transaction_id, '--json']);
    assert.equal(again.code, 4, again.stdout);
    assert.equal(JSON.parse(again.stdout).error.code, 'not_pending');
    const q = await preview(group());
    const j = JSON.parse((await cliAs(alice.identity, ['deny', q.transaction_id, '--json'])).stdout);
    assert.deepEqual([j.state, j.deny_reason], ['Canceled', undefined]);
    assert.match(j.denied_by, /^alice\(uid \d+\)$/);
  });

  test('--help teaches who may deny, and the exit codes', async () => {
    const r = await cliAs(olga.identity, ['deny', '--help']);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /--reason <text>/);
    assert.match(r.stdout, /the people who may approve it/);
    assert.match(r.stdout, /no authenticator code/);
    assert.match(r.stdout, /Exit status/);
    const top = await cliAs(olga.identity, ['--help']);
    assert.match(top.stdout, /\n  deny\b/);
    assert.match(top.stdout, /--wait +# says who approves, waits, executes/);
  });
});

describe('airlock execute --wait', () => {
  test('waits for the approval from another principal, takes the receipt from the daemon, executes', async () => {
    const name = group();
    const p = await preview(name);
    const r = await cliAs(agent.identity, ['execute', p.transaction_id, '--wait', '60'], once(/waiting for a person to approve/, () => void w.approve(alice, p)));
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /they run: airlock approve tx_[0-9a-f]{24}/);
    assert.match(r.stderr, /approved by alice\(uid \d+\); executing CreateGroup/);
    assert.match(r.stdout, /^Succeeded /);
    assert.match((await w.d.box.readFile('/etc/group'))!, new RegExp(`^${name}:`, 'm'));
  });

  test('a denial ends it with exit 3 and the reason; a timeout with exit 7; a canceled one with 4', async () => {
    const p = await preview(group());
    const denied = await cliAs(agent.identity, ['execute', p.transaction_id, '--wait'], once(/waiting for a person/, () => void alice.call('deny', { transaction_id: p.transaction_id, reason: 'use the ops group' })));
    assert.equal(denied.code, 3, denied.stderr);
    assert.match(denied.stderr, /authorization\/denied\] alice\(uid \d+\) denied tx_[0-9a-f]{24}: use the ops group/);
    const q = await preview(group());
    const t0 = Date.now();
    const late = await cliAs(agent.identity, ['execute', q.transaction_id, '--wait', '1', '--json']);
    assert.equal(late.code, 7, late.stdout);
    assert.equal(JSON.parse(late.stdout).error.code, 'wait_timeout');
    assert.equal(late.stderr, '', '--json: nothing on stderr');
    assert.ok(Date.now() - t0 < 20_000);
    const canceled = await cliAs(agent.identity, ['execute', q.transaction_id, '--wait'], once(/waiting for a person/, () => void agent.call('cancel', { transaction_id: q.transaction_id })));
    assert.equal(canceled.code, 4, canceled.stderr);
    assert.match(canceled.stderr, /stale_approval\/not_pending\] tx_[0-9a-f]{24} was canceled/);
  });

  test("another principal's --wait is refused as its execute would be", async () => {
    const p = await preview(group());
    const r = await cliAs(olga.identity, ['execute', p.transaction_id, '--wait', '5', '--json']);
    assert.equal(r.code, 3, r.stdout);
    assert.equal(JSON.parse(r.stdout).error.category, 'authorization');
  });

  test('usage: neither --receipt nor --wait, both, or a bad number of seconds', async () => {
    const p = await preview(group());
    for (const args of [[], ['--wait', '--receipt', 'alr1.x'], ['--receipt', 'alr1.x', '--wait', '5'], ['--wait', 'soon'], ['--wait', '0'], ['--wait', '86401']]) {
      const r = await cliAs(agent.identity, ['execute', p.transaction_id, ...args]);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    }
    const help = await cliAs(agent.identity, ['execute', '--help']);
    assert.match(help.stdout, /-w, --wait \[seconds\]/);
    assert.match(help.stdout, /3 a person denied it/);
  });

  test('at a terminal it shows how long it waited and how long the preview has left', async () => {
    const p = await preview(group());
    const inner = [...setpriv(agent.identity), ...node(), 'execute', p.transaction_id, '--wait', '60'].join(' ');
    const r = await typeAt(inner, [
      [
        'the preview expires in',
        async () => {
          await new Promise((res) => setTimeout(res, 1200)); // a redraw or two
          await w.approve(alice, p);
          return '';
        },
      ],
    ]);
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, new RegExp(`waiting 0:0\\d for ${p.transaction_id}, the preview expires in 1\\d:\\d\\d \\(Ctrl-C stops waiting`));
    assert.match(r.out, /\x1b\[K/, 'the line is redrawn in place');
    assert.match(r.out, /Succeeded/);
  });
});

describe('airlock preview --wait', () => {
  test('previews, says who must approve and the exact command, waits, and executes', async () => {
    const name = group();
    let id = '';
    const r = await cliAs(agent.identity, ['preview', 'CreateGroup', '--params', JSON.stringify({ group: name }), '--wait', '60'], once(/ {2}airlock approve (tx_[0-9a-f]{24})\n/, (m) => {
      id = m[1]!;
      void alice.call('transaction.get', { transaction_id: id }).then((t) => w.approve(alice, livePreview(t)));
    }));
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /Create group/);
    assert.match(r.stderr, new RegExp(`waiting for a person to approve ${id} \\(CreateGroup, medium risk\\): someone in airlock-approvers with the dev or admin role runs, as themselves:`));
    assert.match(r.stderr, new RegExp(`or refuses it: airlock deny ${id} --reason`));
    assert.match(r.stderr, /approved by alice\(uid \d+\)/);
    assert.match(r.stdout, /^Succeeded /);
    assert.match((await w.d.box.readFile('/etc/group'))!, new RegExp(`^${name}:`, 'm'));
  });

  test('high risk says the approver needs their code; an approver requesting is told they may approve it themselves', async () => {
    let seen = '';
    const r = await cliAs(alice.identity, ['preview', 'CreateUser', '--param', 'user=wcliuser', '--wait', '1'], once(/you may approve/, (m) => (seen = m.input)));
    assert.equal(r.code, 7, r.stderr);
    assert.match(seen, /with the admin role, with their authenticator code, runs/);
    assert.match(seen, /you may approve it yourself, in a terminal of your own, with your authenticator code/);
  });

  test('a read the policy approves executes at once; --json gives {preview, result}', async () => {
    const r = await cliAs(agent.identity, ['preview', 'ListUsers', '--wait', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const j = JSON.parse(r.stdout) as { preview: { transaction_id: string; auto_approval?: { rule: string } }; result: { state: string; output: string[] } };
    assert.equal(j.preview.auto_approval?.rule, 'reads');
    assert.equal(j.result.state, 'Succeeded');
    assert.ok(j.result.output.some((l) => l.startsWith('root:x:0:0:')));
  });
});
