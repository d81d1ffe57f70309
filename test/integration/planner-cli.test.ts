/**
 * `airlock plan` and `airlock do` against a real daemon, run as real Unix users (setpriv).
 * With a scripted planner (test/support/door-cli.ts runs the commands' own flows with it):
 * `do` runs a two-step plan end to end, the read approved by the policy and the change by a
 * person while it waits; it stops at a denial and cancels the rest; it runs nothing when
 * the daemon refused a step; it asks once at a terminal, and without one it needs --yes.
 * `plan` shows the daemon's risk and refusals, the approve command, the planner's words
 * escaped. The real `airlock` command line: a secret in the intent is refused (exit 5),
 * the configured planner (offline here) answers, help teaches.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Principal, UnixIdentity } from '../../src/sandbox/principal.js';
import type { PlanStep } from '../../src/planner/contract.js';
import { CLI } from '../support/cli.js';
import type { PlannerScript } from '../support/scripted-planner.js';
import { typeAt } from '../support/terminal.js';
import { startWorld, type World } from '../support/world.js';
import { livePreview } from '../../src/protocol/compacted.js';

const DOOR_CLI = join(dirname(fileURLToPath(import.meta.url)), '..', 'support', 'door-cli.ts');
const TSX = import.meta.resolve('tsx');

let w: World;
let agent: Principal, alice: Principal;
before(async () => {
  w = await startWorld(); // the default policy: non-sensitive Low reads approved by it
  agent = await w.as('agent', ['airlock-admin']);
  alice = await w.as('alice', ['airlock-admin', 'airlock-approvers']);
});
after(() => w?.close());

const asUser = (who: UnixIdentity) => ['/usr/bin/setpriv', `--reuid=${who.uid}`, `--regid=${who.gid}`, `--groups=${who.groups.join(',')}`, '--inh-caps=-all', '--'];
const ENV = { PATH: '/usr/bin:/bin', HOME: '/tmp', NO_COLOR: '1' };

function run(argv: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(argv[0]!, argv.slice(1), { cwd: '/', stdio: ['ignore', 'pipe', 'pipe'], env: { ...ENV, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code: code ?? 128, stdout, stderr }));
  });
}

/** The plan or do flow as `who`, with this scripted planner, no terminal. */
const door = (who: Principal, verb: 'plan' | 'do', intent: string, script: PlannerScript, flags: string[] = []) =>
  run([...asUser(who.identity), process.execPath, '--import', TSX, DOOR_CLI, w.d.socket, verb, intent, ...flags], { PLANNER_SCRIPT: JSON.stringify(script) });
/** The real command line as `who`. */
const airlockAs = (who: Principal | null, args: string[]) => run([...(who ? asUser(who.identity) : []), process.execPath, '--import', TSX, CLI, '--socket', w.d.socket, ...args]);

const steps = (...s: Array<PlanStep & Record<string, unknown>>): PlannerScript => ({ verdict: { kind: 'plan', summary: 'as asked', steps: s } });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The agent's transaction of `action` whose summary matches, once it shows up in the history. */
async function txOf(action: string, summary: RegExp, state?: 'Previewed') {
  for (let i = 0; i < 600; i++) {
    const t = (await agent.call('history', { action, limit: 50, ...(state ? { state } : {}) })).find((x) => summary.test(x.summary));
    if (t) return t;
    await sleep(100);
  }
  throw new Error(`no ${action} transaction matching ${summary}`);
}
const approveTx = async (id: string) => w.approveSoon(alice, livePreview(await alice.call('transaction.get', { transaction_id: id })));

describe('airlock do', () => {
  test('runs a two-step plan end to end: the read approved by the policy, the change by a person while it waits', async () => {
    const done = door(agent, 'do', 'show disk usage, then create the group dogroup', steps({ action_name: 'DiskUsage', params: {}, reason: 'look first' }, { action_name: 'CreateGroup', params: { group: 'dogroup' }, reason: 'asked for' }), ['--yes', '--json']);
    const waiting = await txOf('CreateGroup', /dogroup/, 'Previewed');
    await approveTx(waiting.transaction_id);
    const r = await done;
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.deepEqual(out.results.map((x: { action_name: string; state: string }) => [x.action_name, x.state]), [['DiskUsage', 'Succeeded'], ['CreateGroup', 'Succeeded']]);
    assert.equal(out.stopped, null);
    assert.equal(out.plan.steps[1].preview.transaction_id, waiting.transaction_id);
    assert.match(r.stderr, /approved by the policy \(rule reads\)/);
    assert.match(r.stderr, new RegExp(`waiting for another approver[\\s\\S]*airlock approve ${waiting.transaction_id}`));
    const tx = await agent.call('transaction.get', { transaction_id: waiting.transaction_id });
    assert.equal(tx.state, 'Succeeded');
    assert.match(tx.approved_by ?? '', /alice/);
  });

  test('stops at the first denial, cancels the steps after it, exit 3', async () => {
    const done = door(agent, 'do', 'show disk usage, then create the group denied1', steps({ action_name: 'DiskUsage', params: {}, reason: '' }, { action_name: 'CreateGroup', params: { group: 'denied1' }, reason: '' }), ['--yes', '--json']);
    const first = await txOf('CreateGroup', /denied1/, 'Previewed');
    await alice.call('deny', { transaction_id: first.transaction_id, reason: 'not today' });
    const r = await done;
    assert.equal(r.code, 3, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.equal(out.stopped.step, 2);
    assert.equal(out.stopped.error.code, 'denied');
    assert.match(out.stopped.error.message, /not today/);
  });

  test('two changes are one plan: a denial of the plan runs none of its steps, exit 3', async () => {
    const done = door(agent, 'do', 'two groups', steps({ action_name: 'CreateGroup', params: { group: 'denied2' }, reason: '' }, { action_name: 'CreateGroup', params: { group: 'never2' }, reason: '' }), ['--yes', '--json']);
    const plan = await txOf('Plan', /denied2.*never2/, 'Previewed');
    await alice.call('deny', { transaction_id: plan.transaction_id, reason: 'not today' });
    const r = await done;
    assert.equal(r.code, 3, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.deepEqual(out.results, []);
    assert.equal(out.stopped.error.code, 'denied');
    assert.equal(out.plan.plan.transaction_id, plan.transaction_id);
    assert.equal((await agent.call('history', { action: 'CreateGroup', limit: 50 })).filter((t) => /never2|denied2/.test(t.summary)).length, 0, 'no step of its own: the plan is the one transaction');
  });

  test('"add a group deployers and put alice and bob in it": the offline planner\'s three steps as ONE plan, shown whole, approved once while `do` waits, executed as one', async () => {
    await w.d.addUser('bob', []);
    const done = airlockAs(agent, ['do', 'add a group deployers and put alice and bob in it', '--yes', '--json']);
    const plan = await txOf('Plan', /deployers/, 'Previewed');
    await approveTx(plan.transaction_id); // one approval, with alice's code (High)
    const r = await done;
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.deepEqual(out.plan.proposal, [
      { action_name: 'CreateGroup', params: { group: 'deployers' } },
      { action_name: 'AddUserToGroup', params: { user: 'alice', group: 'deployers' } },
      { action_name: 'AddUserToGroup', params: { user: 'bob', group: 'deployers' } },
    ]);
    assert.equal(out.results.length, 1, 'one result');
    assert.deepEqual(out.results[0].plan_steps.map((s: { state: string }) => s.state), ['succeeded', 'succeeded', 'succeeded']);
    // The whole plan was shown before the question: each step's change and what the one approval binds.
    assert.match(r.stderr, /step 1 Create group deployers[\s\S]*step 3 Add bob to group deployers/);
    assert.match(r.stderr, /groupadd -- deployers/);
    assert.match(r.stderr, /one approval binds every step/);
    assert.match(r.stderr, new RegExp(`airlock approve ${plan.transaction_id}`));
    const line = ((await w.d.box.readFile('/etc/group')) ?? '').split('\n').find((l) => l.startsWith('deployers:'));
    assert.deepEqual(line?.split(':')[3]?.split(','), ['alice', 'bob']);
    assert.match((await agent.call('transaction.get', { transaction_id: plan.transaction_id })).approved_by ?? '', /alice/);
  });

  test('runs nothing when the daemon refused a step: the previewed ones are canceled, exit 1', async () => {
    const r = await door(agent, 'do', 'hostname and nonsense', steps({ action_name: 'GetHostname', params: {}, reason: '' }, { action_name: 'FlyToTheMoon', params: {}, reason: '' }), ['--yes']);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /FlyToTheMoon +REFUSED by the daemon/);
    assert.match(r.stderr, /nothing ran: the daemon refused a step/);
    const rows = await agent.call('history', { action: 'GetHostname', limit: 5 });
    assert.equal(rows[0]?.state, 'Canceled', 'the read the policy approved was not run');
  });

  test('asks once at the terminal; a no cancels every step (exit 3); without a terminal it needs --yes', async () => {
    const script = JSON.stringify(steps({ action_name: 'CreateGroup', params: { group: 'askedno' }, reason: '' }));
    const inner = [...asUser(agent.identity), '/usr/bin/env', `PLANNER_SCRIPT=${script}`, process.execPath, '--import', TSX, DOOR_CLI, w.d.socket, 'do', 'create askedno'].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
    const t = await typeAt(inner, [['Run these 1 step? [y/N]', 'n']]);
    assert.equal(t.code, 3, t.out);
    assert.match(t.out, /you did not say yes/);
    assert.equal((await txOf('CreateGroup', /askedno/)).state, 'Canceled');

    const r = await door(agent, 'do', 'create nottyno', steps({ action_name: 'CreateGroup', params: { group: 'nottyno' }, reason: '' }));
    assert.equal(r.code, 3, r.stderr);
    assert.match(r.stderr, /no_terminal[\s\S]*--yes/);
    assert.equal((await txOf('CreateGroup', /nottyno/)).state, 'Canceled');
  });
});

describe('airlock plan', () => {
  test("shows each step with the daemon's risk, its transaction and approve command, refusals, and the planner's words escaped", async () => {
    const script: PlannerScript = {
      verdict: { kind: 'plan', summary: 'a group\u001b[2J for the team', steps: [{ action_name: 'CreateGroup', params: { group: 'planteam' }, reason: 'safe, low risk', risk: 'low' } as PlanStep, { action_name: 'GetHostname', params: { to: 'the moon' }, reason: '' }] },
      notes: ['did not understand "the team"'],
    };
    const r = await door(agent, 'plan', 'a group for the team', script);
    assert.equal(r.code, 1, 'a refused step: no plan to run as it stands');
    const tx = await txOf('CreateGroup', /planteam/, 'Previewed');
    assert.match(r.stdout, new RegExp(`1\\. CreateGroup +medium +.*planteam[\\s\\S]*${tx.transaction_id}[\\s\\S]*airlock approve ${tx.transaction_id}`));
    assert.match(r.stdout, /why \(the planner's words\): safe, low risk/);
    assert.match(r.stdout, /2\. GetHostname +REFUSED by the daemon[\s\S]*error \[validation\//);
    assert.match(r.stdout, /a group\\x1b\[2J for the team/, 'escaped, not interpreted');
    assert.doesNotMatch(r.stdout, /\u001b/);
    assert.match(r.stdout, /Notes from the planner:\n {2}- did not understand "the team"/);
    assert.doesNotMatch(r.stdout, /CreateGroup +low/);

    const j = await door(agent, 'plan', 'just a group', steps({ action_name: 'CreateGroup', params: { group: 'planjson' }, reason: '' }), ['--json']);
    assert.equal(j.code, 0, j.stderr);
    const view = JSON.parse(j.stdout);
    assert.equal(view.steps[0].preview.risk, 'medium');
    assert.match(view.steps[0].preview.transaction_id, /^tx_[0-9a-f]{24}$/);
  });

  test('two or more changes: the plan is shown as one, with its one transaction and the one command that approves it', async () => {
    const r = await airlockAs(agent, ['plan', 'add a group planners and put alice in it']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /1\. CreateGroup +medium +Create group planners[\s\S]*2\. AddUserToGroup +high +Add alice to group planners/);
    const id = /One plan, one approval for all 2 steps .*: (tx_[0-9a-f]{24}) +high/.exec(r.stdout)?.[1];
    assert.ok(id, r.stdout);
    assert.match(r.stdout, new RegExp(`approval: waiting for a person \\(role admin or above\\): airlock approve ${id}`));
    assert.match(r.stdout, new RegExp(`then you run it, as one: airlock execute ${id} --wait`));
    assert.equal((await agent.call('transaction.get', { transaction_id: id })).action_name, 'Plan');
  });

  test('never a dropped part: a request with a part no action carries out is INCOMPLETE, named, and exits 11 (plan and do: nothing runs)', async () => {
    const r = await airlockAs(agent, ['plan', 'install nginx and frobnicate it', '--json']);
    assert.equal(r.code, 11, r.stderr);
    const view = JSON.parse(r.stdout);
    assert.equal(view.complete, false);
    assert.deepEqual(view.missing, [{ part: 'frobnicate it', why: 'no action matched' }]);
    assert.deepEqual(view.proposal, [{ action_name: 'InstallPackage', params: { package: 'nginx' } }]);
    const text = await airlockAs(agent, ['plan', 'install nginx and frobnicate it']);
    assert.equal(text.code, 11);
    assert.match(text.stdout, /INCOMPLETE[\s\S]*missing: frobnicate it: no action matched/);

    const d = await airlockAs(agent, ['do', 'install nginx and frobnicate it', '--yes']);
    assert.equal(d.code, 11, d.stderr);
    assert.match(d.stderr, /nothing ran: the plan is incomplete/);
    assert.equal((await agent.call('history', { action: 'InstallPackage', limit: 1 }))[0]?.state, 'Canceled', 'the step it did plan waits for nobody');

    // Both halves planned, in dependency order, as one list ready for airlock_propose. Until the
    // daemon previews a plan as a whole, StartService may be refused here (no nginx yet): exit 1, never 0 with half a plan.
    const both = await airlockAs(agent, ['plan', 'install nginx and start it', '--json']);
    const whole = JSON.parse(both.stdout);
    assert.equal(whole.complete, true);
    assert.deepEqual(whole.missing, []);
    assert.deepEqual(whole.proposal, [{ action_name: 'InstallPackage', params: { package: 'nginx' } }, { action_name: 'StartService', params: { unit: 'nginx.service' } }]);
    assert.equal(both.code, whole.steps.every((s: { ok: boolean }) => s.ok) ? 0 : 1, both.stderr);
  });

  test('the real command line: a secret in the intent is refused before anything (exit 5); the planner chosen by the configuration answers; help teaches', async () => {
    const before = (await agent.call('history', { limit: 200 })).length;
    const s = await airlockAs(agent, ['plan', 'create user deploy with password=Tr0ub4dor&3xyz']);
    assert.equal(s.code, 5, s.stderr);
    assert.match(s.stderr, /secret_in_intent/);
    assert.doesNotMatch(s.stderr, /Tr0ub4dor/);
    assert.equal((await agent.call('history', { limit: 200 })).length, before);

    // No LLM configured: the offline planner. Its step is previewed by the daemon (which may
    // refuse it here, where no nginx is installed: the view then carries the daemon's refusal).
    const o = await airlockAs(agent, ['plan', 'restart nginx', '--json']);
    assert.ok(o.code === 0 || o.code === 1, o.stderr);
    const planned = JSON.parse(o.stdout);
    assert.equal(planned.planner.kind, 'offline');
    assert.deepEqual(planned.steps.map((s: { step: { action_name: string; params: unknown } }) => s.step), [{ action_name: 'RestartService', params: { unit: 'nginx.service' }, reason: 'restart nginx.service', part: 'restart nginx' }]);
    assert.ok(planned.steps[0].ok ? planned.steps[0].preview.risk === 'medium' : /nginx/.test(planned.steps[0].error.message), o.stdout);
    // A read it maps, run end to end by `do`: the policy approves the read, the output comes back.
    const done = await airlockAs(agent, ['do', 'how much disk space is left?', '--yes']);
    assert.equal(done.code, 0, done.stderr);
    assert.match(done.stderr, /offline/);
    assert.match(done.stdout, /Succeeded/);
    assert.match(done.stdout, /\/\s/, 'df output, with the root file system');
    const bad = await airlockAs(agent, ['plan', 'restart nginx', '--provider', 'nope']);
    assert.equal(bad.code, 5);
    assert.match(bad.stderr, /unknown provider/);
    const noLlm = await airlockAs(agent, ['do', 'restart nginx', '--model', 'gpt-4o']);
    assert.equal(noLlm.code, 5);
    assert.match(noLlm.stderr, /no LLM is configured/);

    for (const cmd of ['plan', 'do']) {
      const h = await airlockAs(null, [cmd, '--help']);
      assert.equal(h.code, 0);
      assert.match(h.stdout, new RegExp(`airlock ${cmd} "`), 'an example');
      assert.match(h.stdout, /Exit status: 0/);
      assert.match(h.stdout, /11 the plan is incomplete/);
      assert.match(h.stdout, /--provider/);
    }
  });
});
