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
 * The web console (blocks `console` and `console-flow`): the browser is Debian's headless
 * Chromium driven by playwright-core with the DevTools virtual authenticator (alice's laptop
 * passkey). It runs in the test bed's network namespace: what `ssh -L 7443:localhost:7443`
 * gives a laptop, the server's own 127.0.0.1:7443 at http://localhost:7443. Each agent line
 * that waits (`--wait`) runs while alice approves the new waiting change in the page, after
 * checking its match code; the agent's output must show the same code.
 *
 * The people: `alice` is "you" (a sysadmin with sudo, as the README assumes), `agent`
 * the agent's own account, `auditor` "anyone" (an observer). Placeholders the README
 * prints for what a previous command printed (`tx_...`, `alr1....`) take those values;
 * the example key `AAAA...` becomes a real key.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { browserWithPasskeys, visible as visibleOn } from '../support/console-browser.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startWorld, type World } from '../support/world.js';
import { checkoutCopy } from '../support/checkout-copy.js';
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
after(async () => {
  await browser?.close();
  await w?.close();
});

/** The laptop's browser, once `ssh -L` (its stand-in) opened the way to the console. */
let browser: Browser | undefined;
let page: Page;
const CONSOLE = 'http://localhost:7443';

/**
 * The stand-in for `ssh -L 7443:localhost:7443 SERVER`: Chromium in the test bed's network
 * namespace (a wrapper nsenter's it there; playwright talks to it over its pipes), with a virtual
 * platform authenticator with user verification, as a laptop's. Waits for the console to answer.
 */
async function openTunnelAndBrowser(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'readme-browser-'));
  const wrapper = join(dir, 'chromium-in-testbed');
  writeFileSync(wrapper, `#!/bin/sh\nexec /usr/bin/nsenter -t ${w.d.box.pid} -n -- /usr/bin/chromium "$@"\n`);
  chmodSync(wrapper, 0o755);
  ({ browser, page } = await browserWithPasskeys(wrapper));
  for (let i = 0; ; i++) {
    try {
      await page.goto(`${CONSOLE}/`, { timeout: 5_000 });
      break;
    } catch (e) {
      if (i >= 60) {
        const journal = (await w.d.box.run('/usr/bin/journalctl', ['-u', 'airlock-console', '--no-pager', '-n', '40'])).stdout;
        throw new Error(`the console at ${CONSOLE} did not answer in the test bed: ${(e as Error).message}\n${journal}`);
      }
      await new Promise((ok) => setTimeout(ok, 500));
    }
  }
  return `(stand-in) the browser reaches ${CONSOLE} in the server's network, as through the tunnel`;
}

const visible = (selector: string, timeout?: number) => visibleOn(page, selector, timeout);

/** alice in the browser: the registration page of the link the terminal printed, showing the same check code; she makes the passkey. */
async function registerInBrowser(terminal: string): Promise<null> {
  const tty = terminal.replace(/\x1b\[[0-9;]*[A-Za-z]/g, '');
  const link = /(http:\/\/localhost:7443\/register#[A-Za-z0-9_-]+)/.exec(tty)?.[1] ?? assert.fail(`passkey add printed no link:\n${tty}`);
  const check = /Check code: (\S+)/.exec(tty)?.[1] ?? assert.fail(`passkey add printed no check code:\n${tty}`);
  await page.goto(link);
  await visible('#reg-check:not(:empty)');
  assert.equal(await page.textContent('#reg-check'), check, 'the page finishes her own registration');
  await page.click('#reg-button');
  await visible('#notice:not([hidden])');
  return null;
}

const decided = new Set<string>();
/**
 * alice in the browser: signed in with her passkey (once), she opens the change that is new in
 * the waiting list, reads its match code, and approves it with her passkey. Returns the code and
 * the preview's text as the page showed them.
 */
async function approveInBrowser(): Promise<{ code: string; text: string }> {
  await page.goto(`${CONSOLE}/`);
  await visible('#view-inbox:not([hidden]), #view-signin:not([hidden])');
  if (await page.isVisible('#view-signin')) {
    await page.click('#signin-button');
    await visible('#view-inbox:not([hidden])');
  }
  let id: string | undefined;
  for (let i = 0; i < 120 && !id; i++) {
    const ids = await page.$$eval('#inbox-list a', (as) => as.map((a) => a.getAttribute('href')!.slice('/tx/'.length)));
    id = ids.find((x) => !decided.has(x));
    if (!id) await page.waitForTimeout(500);
  }
  assert.ok(id, 'a new change waits in the console');
  decided.add(id!);
  await page.click(`a[href="/tx/${id}"]`);
  await visible('#tx-decide:not([hidden])');
  const code = (await page.textContent('#tx-match'))!;
  const text = (await page.textContent('#tx-preview'))!;
  await page.click('#approve-button');
  await visible('#notice:not([hidden])');
  assert.match((await page.textContent('#notice'))!, /^Approved by alice\(uid \d+\)/);
  return { code, text };
}

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
  if (cmd.startsWith('passkey add')) {
    // The link and check code print first: the browser part, typing nothing; then her code (her first passkey).
    return [['Check code', registerInBrowser], ['Code from your authenticator app', () => phone.code(login)]];
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
    for (const [program, args] of checkoutCopy(words[4]!)) await root(program, args);
    return { code: 0, out: `(stand-in) copied this checkout to ${words[4]}` };
  }
  if (words[0] === 'ssh' && words[1] === '-L') return { code: 0, out: await openTunnelAndBrowser() };
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

test('the web console, as the README has it: a passkey made in the browser, the agent\'s High change approved there, and a three-step plan with one assertion', async () => {
  const r: Reader = { cwd: {}, transcript: [] };
  await follow('console', r);
  for (const line of readmeBlock(README, 'console-flow')) {
    for (const argv of line.commands) {
      const waits = argv.includes('--wait');
      const running = runCommand(argv, line.who, r);
      const shown = waits
        ? await approveInBrowser().catch(async (e) => {
            const res = await Promise.race([running, new Promise((ok) => setTimeout(() => ok('(still running)'), 5_000))]);
            throw new Error(`${(e as Error).message}; the page: ${await page.textContent('main')}; the agent's line "${line.text.trim()}": ${JSON.stringify(res)}`);
          })
        : null;
      const res = await running;
      r.transcript.push(`${line.who}$ ${argv.join(' ')}\n${res.out}`);
      assert.equal(res.code, 0, `README block console-flow, line "${line.text.trim()}" exited ${res.code}:\n${r.transcript.slice(-3).join('\n')}`);
      r.tx = /\b(tx_[0-9a-f]{24})\b/.exec(res.out)?.[1] ?? r.tx;
      if (shown) {
        // The preview that made it printed the code: this line's (preview --wait), or the plan's before it.
        const agentSaw = r.transcript.slice(-2).join('\n');
        assert.ok(agentSaw.includes(shown.code), `the agent's preview showed the match code the page showed (${shown.code}):\n${agentSaw}`);
        assert.match(res.out, /Succeeded/);
      }
      if (argv[1] === 'plan') assert.equal((res.out.match(/^\s*step \d/gm) ?? []).length >= 3 || /3 steps/.test(res.out), true, `a plan of three steps:\n${res.out}`);
      if (waits && argv[1] === 'execute') assert.equal((shown!.text.match(/AddUserToGroup/g) ?? []).length >= 2 && shown!.text.includes('CreateGroup'), true, `the page showed every step of the plan:\n${shown!.text}`);
    }
  }
  assert.match((await w.d.box.readFile('/etc/passwd'))!, /^builder:/m);
  assert.match((await w.d.box.readFile('/etc/group'))!, /^deployers:x:\d+:(alice,deploy|deploy,alice)$/m);
  // The daemon's journal says how each was approved: with her passkey, not a code.
  const journal = (await w.d.box.run('/usr/bin/journalctl', ['-u', 'airlock', '--no-pager', '-o', 'cat'])).stdout;
  assert.equal((journal.match(/^(?:airlock-daemon: )?alice\(uid \d+\) approved (CreateUser|Plan) tx_[0-9a-f]{24} requested by agent\(uid \d+\), with passkey [0-9a-f]{16}$/gm) ?? []).length, 2, journal.split('\n').filter((l) => l.includes('approved')).join('\n'));
});
