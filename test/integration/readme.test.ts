/**
 * The README's server install and flow, followed as written, on the booted Debian test
 * bed. The commands are read from the README itself (test/support/readme.ts): the
 * blocks `install`, `enrol`, `agent-account`, `flow` and `own-account`, line by line,
 * each as the person its prompt names, with the groups of a fresh login. A README that
 * drifts (a renamed command or flag, a group the example does not match) fails here.
 *
 * What stands in for what a fresh host would do over the network: the test bed has no
 * network, so `git clone` is a copy of this checkout, already built, and `npm install`
 * checks that the copy holds what it would have built. The prerequisites block (apt
 * and NodeSource) is only checked for what it promises: Node 20 or newer.
 *
 * The people: `alice` is "you" (a sysadmin with sudo, as the README assumes), `agent`
 * the agent's own account, `auditor` "anyone" (an observer). Placeholders the README
 * prints for what a previous command printed (`tx_...`, `alr1....`) take those values;
 * the example key `AAAA...` becomes a real key.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startWorld, type World } from '../support/world.js';
import { typeAt, type Answer } from '../support/terminal.js';
import { readmeBlock, readReadme, type ReadmeLine } from '../support/readme.js';
import { Authenticator } from '../../src/sandbox/authenticator.js';

const PROJECT = join(fileURLToPath(import.meta.url), '..', '..', '..');
const README = readReadme(join(PROJECT, 'README.md'));
const LOGIN: Record<string, string> = { you: 'alice', agent: 'agent', anyone: 'auditor' };
const PATH = '/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin';

let w: World;
const phone = new Authenticator();
/** A real public key for the README's `ssh-ed25519 AAAA... laptop`. */
let keyBlob: string;

before(async () => {
  w = await startWorld([], 'testbed');
  const dir = mkdtempSync(join(tmpdir(), 'readme-key-'));
  execFileSync('/usr/bin/ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'laptop', '-f', join(dir, 'k')]);
  keyBlob = readFileSync(join(dir, 'k.pub'), 'utf8').split(' ')[1]!;
  rmSync(dir, { recursive: true, force: true });
});
after(() => w?.close());

const inside = () => ['/usr/bin/nsenter', '-t', String(w.d.box.pid), '-a', '--'];
async function root(program: string, args: string[]): Promise<string> {
  const r = await w.d.box.run(program, args);
  assert.equal(r.code, 0, `${program} ${args.join(' ')}: ${r.stderr}${r.stdout}`);
  return r.stdout;
}

/** What one reader of the README has seen so far: where they are, the last ids printed. */
interface Reader {
  cwd: Record<string, string>;
  tx?: string;
  receipt?: string;
  /** The action and risk of the last preview, which decide what its approver types. */
  action?: string;
  risk?: string;
  /** Every command run, with its output, for the failure message. */
  transcript: string[];
}

/** A line's words with the README's placeholders filled in from what came before. */
function fill(words: string[], login: string, r: Reader): string[] {
  return words.map((word) => {
    let out = word.replaceAll('$USER', login).replace('AAAA...', keyBlob);
    if (out === 'tx_...') out = r.tx ?? assert.fail('the README uses tx_... before any command printed a transaction id');
    if (out === 'alr1....') out = r.receipt ?? assert.fail('the README uses alr1.... before any command printed a receipt');
    return out;
  });
}

/** The words as a login of `login` runs them: its own groups, a clean environment, its directory. */
function asLogin(login: string, cwd: string, argv: string[]): string[] {
  return ['/usr/bin/setpriv', `--reuid=${login}`, `--regid=${login}`, '--init-groups', '--', '/usr/bin/env', '-i', '-C', cwd, `USER=${login}`, `HOME=/home/${login}`, `PATH=${PATH}`, ...argv];
}
const shellWord = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/** The answers a person types at a command's prompts, by what the command is. */
function answersFor(argv: string[], login: string, r: Reader): Answer[] | null {
  const words = argv[0] === 'sudo' ? argv.slice(1) : argv;
  const cmd = words.slice(words[0] === 'airlock' ? 1 : 0).join(' ');
  if (cmd.startsWith('totp enroll')) {
    return [['First code from the app', async (tty) => (phone.add(login, /secret {2}([A-Z2-7]{32})/.exec(tty)![1]!), phone.code(login))]];
  }
  if (cmd.startsWith('approve ')) {
    // A code always here (High, or the person's own request), then High's typed name or a y/N.
    const confirm: Answer = r.risk === 'high' ? ['Type the action name', r.action!] : [`Approve ${r.action}`, 'y'];
    return [['Code from your authenticator app', () => phone.code(login)], confirm];
  }
  return null;
}

/** One README command: a stand-in where it needs the network, else run as its reader. */
async function runCommand(argv: string[], who: string, r: Reader): Promise<{ code: number; out: string }> {
  const login = LOGIN[who] ?? assert.fail(`the README has a prompt ${who}$ this test does not know`);
  const words = fill(argv, login, r);
  const cwd = r.cwd[who] ?? `/home/${login}`;
  if (words[0] === 'cd') return (r.cwd[who] = words[1]!), { code: 0, out: '' };
  if (words[0] === 'sudo' && words[1] === 'git' && words[2] === 'clone') {
    await root('/usr/bin/cp', ['-a', '--', PROJECT, words[4]!]);
    return { code: 0, out: `(stand-in) copied this checkout to ${words[4]}` };
  }
  if (words[0] === 'sudo' && words[1] === 'npm' && words[2] === 'install') {
    const built = await w.d.box.run('/usr/bin/test', ['-f', join(cwd, 'native/build/Release/airlock_native.node')]);
    return { code: built.code, out: `(stand-in) the checkout in ${cwd} is built` };
  }
  const answers = answersFor(words, login, r);
  if (answers && words[0] === 'sudo') {
    // sudo at a terminal of the person's PAM login session (pam_loginuid sets the kernel's login uid, as ssh or a console login does).
    // The sudo is the launcher's (sudo, then script's pseudo-terminal, as in test/integration/install.test.ts).
    const session = [...inside(), '/usr/bin/systemd-run', '--quiet', '--pipe', '--wait', '--collect', '-p', 'PAMName=login', `--uid=${login}`, `--working-directory=${cwd}`, '--', '/usr/bin/sudo', '-n', '--'];
    const t = await typeAt(words.slice(1).map(shellWord).join(' '), answers, { via: session });
    return { code: t.code, out: t.out };
  }
  if (answers) {
    // typeAt runs it at a pseudo-terminal through script(1), which takes one command string.
    const t = await typeAt(asLogin(login, cwd, words).map(shellWord).join(' '), answers, { via: inside() });
    return { code: t.code, out: t.out };
  }
  const [program, ...args] = asLogin(login, cwd, words);
  const res = await w.d.box.run(program!, args);
  return { code: res.code, out: res.stdout + res.stderr };
}

/** Follows a README block line by line; every command must exit 0 unless `expect` says otherwise. */
async function follow(block: string, r: Reader): Promise<string[]> {
  const outputs: string[] = [];
  for (const line of readmeBlock(README, block) as ReadmeLine[]) {
    for (const argv of line.commands) {
      const res = await runCommand(argv, line.who, r);
      r.transcript.push(`${line.who}$ ${argv.join(' ')}\n${res.out}`);
      assert.equal(res.code, 0, `README block ${block}, line "${line.text.trim()}" exited ${res.code}:\n${r.transcript.slice(-4).join('\n')}`);
      r.tx = /\b(tx_[0-9a-f]{24})\b/.exec(res.out)?.[1] ?? r.tx;
      r.receipt = /\b(alr1\.[A-Za-z0-9_.-]+)/.exec(res.out)?.[1] ?? r.receipt;
      if (argv[0] === 'airlock' && argv[1] === 'preview') (r.action = argv[2], (r.risk = /\b(low|medium|high) risk\b/.exec(res.out)?.[1]));
      outputs.push(res.out);
    }
  }
  return outputs;
}

/** The people a fresh host has before the README starts: a sysadmin with sudo, and an auditor. */
async function freshHost(): Promise<void> {
  await root('/usr/sbin/useradd', ['-m', '-s', '/bin/bash', '--', 'alice']);
  await root('/usr/bin/sh', ['-c', 'echo "alice ALL=(ALL) NOPASSWD: ALL" > /etc/sudoers.d/alice && chmod 0440 /etc/sudoers.d/alice']);
  await root('/usr/sbin/useradd', ['-m', '--', 'auditor']);
}

test('a fresh Debian 12 host, the README followed as written: install, enrol, the agent account, a High change, a verified log', async (t) => {
  const started = Date.now();
  const node = await root('/usr/bin/env', ['node', '--version']).catch(() => root('/usr/local/bin/node', ['--version']));
  assert.ok(Number(/^v(\d+)/.exec(node.trim())?.[1]) >= 20, `the prerequisites promise Node 20 or newer, the test bed has ${node}`);
  await freshHost();
  const r: Reader = { cwd: {}, transcript: [] };

  await follow('install', r);
  for (let i = 0; i < 300 && (await w.d.box.run('/usr/bin/test', ['-S', '/run/airlock/airlock.sock'])).code !== 0; i++) await new Promise((ok) => setTimeout(ok, 100));
  const active = await w.d.box.run('/usr/bin/systemctl', ['is-active', 'airlock']);
  assert.equal(active.stdout.trim(), 'active', (await w.d.box.run('/usr/bin/journalctl', ['-u', 'airlock', '--no-pager', '-n', '30'])).stdout);
  // "anyone" is an auditor with a role: the daemon exports its log to every role.
  await root('/usr/sbin/usermod', ['-aG', 'airlock-observer', '--', 'auditor']);

  const [, doctor] = await follow('enrol', r);
  assert.match(doctor!, /role admin, approver/);
  assert.doesNotMatch(doctor!, /✗/, 'the README says each check passes');

  await follow('agent-account', r);
  const flow = await follow('flow', r);
  assert.match((await w.d.box.readFile('/home/deploy/.ssh/authorized_keys'))!, new RegExp(keyBlob.replaceAll('+', '\\+')));
  assert.match(flow.at(-1)!, /intact/);
  t.diagnostic(`from install to a verified log: ${((Date.now() - started) / 1000).toFixed(1)} s (the README's promise: 10 minutes plus npm install)`);
});

test('the one-account layout: the agent under your own account, your code at Medium risk', async () => {
  const r: Reader = { cwd: {}, transcript: [] };
  const [preview, approve, executed] = await follow('own-account', r);
  assert.equal(r.risk, 'medium');
  assert.match(approve!, /requested under your own account/);
  assert.doesNotMatch(approve! + preview!, /sudo/);
  assert.match(executed!, /Succeeded/);
  assert.match((await w.d.box.readFile('/etc/group'))!, /^web:/m);
});
