/**
 * Every catalogue action executed for real: each family's scenarios run through
 * the daemon (preview by an agent, approval by another Unix user, execute) in a
 * throwaway overlay host or the booted test bed, and each effect is checked from
 * outside the daemon. The families are split into shards (test/integration/
 * catalogue-N.test.ts) so that no one test file runs for more than a few minutes.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, readdirSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CATALOGUE } from '../../src/catalogue/index.js';
import type { AnyAction } from '../../src/catalogue/action.js';
import { rejectsWith, startWorld, type World } from './world.js';
import { argvOnly } from '../unit/catalogue-fixture-host.js';
import type { Principal } from '../../src/sandbox/principal.js';
import type { Scenario, SandboxView } from '../scenarios/types.js';
import type { AutoApprovalGrant, PreviewEnvelope, ResultEnvelope } from '../../src/protocol/messages.js';
import { undeclaredPaths, type DescribedStep } from './named-paths.js';
import { NETWORK_PROGRAMS, shellViolation, type ProgramName } from '../../src/catalogue/programs.js';
import type { StateProbe } from '../../src/catalogue/rollback.js';
import { outsideDigest } from './outside-probes.js';

const dir = join(dirname(fileURLToPath(import.meta.url)), '..', 'scenarios');
export const SHARDS = 6;
/** AIRLOCK_SCENARIOS=users,ssh runs only those scenario files (for working on a family; the coverage check is skipped). */
const only = process.env.AIRLOCK_SCENARIOS?.split(',').filter(Boolean);
const families = readdirSync(dir)
  .filter((f) => f.endsWith('.ts') && f !== 'types.ts')
  .map((f) => f.replace(/\.ts$/, ''))
  .filter((f) => !only || only.includes(f))
  .sort();
/**
 * Each scenario file may say where it runs (`export const host = 'testbed'` for families that
 * need systemd) and how heavy its scenarios are (`export const weight = N`: one costs about N
 * ordinary ones, as apt's installs and removals in each rollback round do).
 */
const loaded = new Map<string, { scenarios: Scenario[]; host: 'overlay' | 'testbed'; weight: number }>();
for (const f of families) {
  const mod = (await import(join(dir, `${f}.ts`))) as { scenarios: Scenario[]; host?: 'overlay' | 'testbed'; weight?: number };
  loaded.set(f, { scenarios: mod.scenarios, host: mod.host ?? 'overlay', weight: mod.weight ?? 1 });
}

/** Families in shards of about equal work: a booted test bed costs about as much as eight scenarios. */
function shardOf(): Map<string, number> {
  const load = Array<number>(SHARDS).fill(0);
  const out = new Map<string, number>();
  const cost = (f: string) => loaded.get(f)!.scenarios.length * loaded.get(f)!.weight + (loaded.get(f)!.host === 'testbed' ? 8 : 2);
  for (const f of [...families].sort((a, b) => cost(b) - cost(a) || a.localeCompare(b))) {
    const i = load.indexOf(Math.min(...load));
    out.set(f, i);
    load[i]! += cost(f);
  }
  return out;
}

/** Registers the tests of one shard (0-based); shard 0 also checks that every action has a scenario. */
export function registerShard(shard: number): void {
  const assigned = shardOf();
  if (shard === 0) registerCoverage();
  for (const family of families.filter((f) => assigned.get(f) === shard)) registerFamily(family);
}

/**
 * Actions whose second identical request, right after a successful one, is not "no change",
 * and why. Every other change action must preview the repeat as no change, which the daemon
 * approves itself and which executes as Succeeded with changed: false.
 */
export const REPEAT_EXCEPTIONS: Record<string, { repeat: 'change' | 'refused' | 'change or refused'; why: string; when?: (params: Record<string, unknown>) => boolean }> = {
  RestartService: { repeat: 'change', why: 'a restart is an event, not a state: every one restarts' },
  ReloadService: { repeat: 'change', why: 'a reload is an event: every one reloads' },
  RestartContainer: { repeat: 'change', why: 'a restart is an event' },
  DaemonReload: { repeat: 'change', why: 'systemd re-reads its units every time' },
  AptUpdate: { repeat: 'change', why: 'the lists are fetched again: the archive may have moved on' },
  RunLogrotate: { repeat: 'change', why: 'logrotate runs again and decides by its own state' },
  SignalProcess: { repeat: 'change or refused', why: 'a signal is an event: sent again, or refused once the process it ended is gone (STOP and CONT are states, and are no change)', when: (p) => !isStopOrCont(p) },
  SignalUnit: { repeat: 'change or refused', why: 'a signal is an event: sent again, or refused once the unit it ended stopped (STOP and CONT are states, and are no change)', when: (p) => !isStopOrCont(p) },
  ExtendLogicalVolume: { repeat: 'change', why: 'it grows the volume by the amount asked, each time' },
  VacuumJournal: { repeat: 'refused', why: 'the archived files are gone: nothing_to_vacuum says so (a size or age target is not compared)' },
  CreateUser: { repeat: 'refused', why: 'a user of that name exists; its attributes are not compared with the request, so it is a conflict, never assumed equal' },
  DeleteUser: { repeat: 'refused', why: 'no_such_user: the name is validated against the account files before anything else' },
  DeleteGroup: { repeat: 'refused', why: 'no_such_group, as DeleteUser' },
  AddRepository: { repeat: 'refused', why: 'a repository of that name exists; its sources and key are not compared' },
  AddRoute: { repeat: 'refused', why: 'a route to the destination exists; its gateway and device are not compared' },
  CreateSudoGrant: { repeat: 'refused', why: 'a grant of that name exists; its rule is not compared' },
  CreateGrantedFile: { repeat: 'refused', why: 'file_exists: a create never overwrites (ReplaceGrantedFile does)' },
  PatchGrantedFile: { repeat: 'refused', why: 'the diff was made against the text before it: its removed lines are no longer there' },
  RemoveGrantedFile: { repeat: 'refused', why: 'no_such_file: the file is gone' },
  RemoveFirewallRule: { repeat: 'refused', why: 'a rule is named by its handle, which names it once' },
  UfwDelete: { repeat: 'refused', why: 'the rule named is gone' },
  RemoveLogrotatePolicy: { repeat: 'refused', why: 'no_such_policy: the name is validated against the files' },
  AddCronJob: { repeat: 'refused', why: 'a cron file of that name exists; its content is not compared' },
  RemoveCronJob: { repeat: 'refused', why: 'no_such_job: the name is validated against the files' },
  CreateTimer: { repeat: 'refused', why: 'a timer of that name exists; its unit file is not compared' },
  RemoveTimer: { repeat: 'refused', why: 'no_such_timer: the name is validated against the files' },
  AddAuditWatch: { repeat: 'refused', why: 'a watch file of that name exists; its rule is not compared' },
  CreateMountpoint: { repeat: 'refused', why: 'the path exists; what it is is not compared with the request' },
  AddFstabEntry: { repeat: 'refused', why: 'an entry for the mount point exists; its fields are not compared' },
  RemoveFstabEntry: { repeat: 'refused', why: 'no_fstab_entry: the entry is gone' },
  CreateSwapFile: { repeat: 'refused', why: 'the path exists' },
  RemoveSwapFile: { repeat: 'refused', why: 'not_a_swap_file: the file is gone' },
};

/** STOP and CONT leave a state (stopped, running) that a second one finds. */
function isStopOrCont(p: Record<string, unknown>): boolean {
  return p.signal === 'STOP' || p.signal === 'CONT';
}

/** The same request again, after a successful one: no change (approved by the daemon, changed: false), or the documented exception. */
async function repeatIsNoChange(sc: Scenario, agent: Principal): Promise<void> {
  const listed = REPEAT_EXCEPTIONS[sc.action];
  const exception = listed && (listed.when?.(sc.params) ?? true) ? listed : undefined;
  let again: (PreviewEnvelope & { auto_approval?: AutoApprovalGrant }) | null = null;
  try {
    again = await agent.call('preview', { action_name: sc.action, params: sc.params });
  } catch (e) {
    assert.match(exception?.repeat ?? 'no change', /refused/, `${sc.action} repeated: ${(e as Error).message}`);
    return;
  }
  if (exception) {
    await agent.call('cancel', { transaction_id: again!.transaction_id }).catch(() => {}); // an auto-approved one is Queued: cancel it too
    assert.match(exception.repeat, /change/, `${sc.action} repeated previews (${again!.summary}), where REPEAT_EXCEPTIONS says it is refused`);
    assert.equal(again!.no_change, undefined, `${sc.action} repeated is no change: remove it from REPEAT_EXCEPTIONS`);
    return;
  }
  assert.equal(again!.no_change, true, `${sc.action} repeated is not "no change": ${again!.summary}`);
  assert.deepEqual(again!.proposed_change.mechanism, []);
  assert.equal(again!.auto_approval?.rule, 'no-change');
  const r: ResultEnvelope = await agent.call('execute', { transaction_id: again!.transaction_id, action_name: sc.action, params: again!.params, receipt: again!.auto_approval!.receipt });
  assert.equal(r.state, 'Succeeded');
  assert.equal(r.changed, false);
}

/** Where a test daemon looks for the file that makes every change fail after its last step (`--test-fault-file`). */
const FAULT_FILE = '/run/airlock-test-fault';

/**
 * AIRLOCK_ROLLBACK_REPORT=FILE: each round an action passed is appended to FILE as a JSON line
 * ({action, round}), for the table of what the scenarios showed (issue 27's closing note).
 */
function shown(action: string, round: 'fault' | 'revert' | 'revert_no_change' | 'drift' | 'drift_by_revert'): void {
  const file = process.env.AIRLOCK_ROLLBACK_REPORT;
  if (file) appendFileSync(file, JSON.stringify({ action, round }) + '\n');
}

/** A change of class exact or compensating, run to success: its rollback and its revert are shown (issue 27). */
function rollbackRounds(sc: Scenario, a: AnyAction): boolean {
  return !a.readOnly && a.rollback.class !== 'none' && !sc.refused && FINISHED_WELL.includes(sc.expect ?? 'Succeeded') && sc.rollbackRounds === undefined;
}
/** A change that ran to success: done, or done but for the reboot it needs (ScheduleReboot). */
const FINISHED_WELL: readonly string[] = ['Succeeded', 'NeedsReboot'];

/**
 * The change, made to fail after its last step (the test daemon's fault file): its undos run, the
 * daemon says the state it touches reads as before, and read from outside the daemon it does.
 */
async function failedIsRolledBack(w: World, view: SandboxView, agent: Principal, human: Principal, sc: Scenario): Promise<void> {
  assert.ok(view.writeFile);
  await view.writeFile(FAULT_FILE, 'fail after the last step\n');
  let f;
  try {
    f = await w.lifecycle(agent, human, sc.action, sc.params);
  } finally {
    await view.run('/usr/bin/rm', ['-f', '--', FAULT_FILE]);
  }
  if (f.p.no_change) return; // nothing ran, nothing to undo
  shown(sc.action, 'fault');
  assert.equal(f.r.error?.code, 'injected_failure', `${sc.action}: ${f.r.summary}`);
  assert.equal(f.r.state, 'RolledBack', `${sc.action} made to fail after its last step: ${f.r.summary}`);
  const check = f.r.state_check!;
  assert.equal(check.expected, 'before');
  assert.equal(check.matches, true, `${sc.action}: after its rollback these differ from before: ${check.differs.join(', ')}`);
  assert.equal(await outsideDigest(view, check.probes as StateProbe[]), check.expected_digest, `${sc.action}: the host, read from outside, is not as it was before the failed change`);
  // Each undo is in the signed log, with the state before and after it.
  const outcome = (await w.entriesOf(f.p.transaction_id)).find((e) => e.kind === 'outcome')!;
  assert.equal(outcome.details.state_matches, true);
  if (check.probes.length) assert.equal(outcome.details.state_before, outcome.details.state_after);
}

/**
 * After the change succeeded: the host drifted from what it left refuses its revert (naming what
 * changed); put back, the revert runs and the state reads as before the change, from outside the
 * daemon too; then the change is made again, for the scenario's own checks and the ones after it.
 */
async function revertedAndRedone(w: World, view: SandboxView, agent: Principal, human: Principal, sc: Scenario, first: { p: PreviewEnvelope; r: ResultEnvelope }): Promise<{ p: PreviewEnvelope; r: ResultEnvelope }> {
  const tx = first.p.transaction_id;
  const detail = await agent.call('transaction.get', { transaction_id: tx });
  const kept = (detail.result as { revert?: { available: boolean; unavailable?: string; probes: StateProbe[]; state_before: string; state_after: string } }).revert;
  assert.ok(kept, `${sc.action}: the finished change kept nothing for a revert`);
  assert.equal(kept.available, true, `${sc.action} declares ${CATALOGUE.get(sc.action)!.rollback!.class} but cannot be reverted: ${kept.unavailable}`);
  assert.equal(await outsideDigest(view, kept.probes), kept.state_after, `${sc.action}: the host, read from outside, is not the state the daemon says the change left`);
  // A probe is a read: never a program that sends packets (as no state reader runs one).
  for (const probe of kept.probes) if ('program' in probe) assert.ok(!NETWORK_PROGRAMS.includes(probe.program), `${sc.action} probes with ${probe.program}, which reaches the network`);
  await driftRefusesRevert(view, agent, sc, tx, kept.probes);
  const back = await w.lifecycle(agent, human, 'RevertTransaction', { transaction_id: tx });
  assert.equal(back.r.state, 'Succeeded', `revert of ${sc.action}: ${back.r.summary} ${JSON.stringify(back.r.error ?? '')}`);
  if (!back.p.no_change) {
    // A state check that reads nothing the change altered could not fail: the probes must see the change.
    assert.ok(kept.probes.length > 0, `${sc.action} declares no state probe for the live state its commands change (rollback.state)`);
    assert.notEqual(kept.state_after, kept.state_before, `${sc.action}: its state probes read the same before and after it, so they do not see what it changes`);
    assert.equal(back.r.state_check?.expected, 'reverted');
    assert.equal(back.r.state_check?.matches, true, `revert of ${sc.action}: these differ from before the change: ${back.r.state_check?.differs.join(', ')}`);
    assert.equal(back.p.risk, first.p.risk, 'a revert is approved at the risk of the change it reverts');
  }
  assert.equal(await outsideDigest(view, kept.probes), kept.state_before, `${sc.action} reverted: the host, read from outside, is not as it was before the change`);
  shown(sc.action, back.p.no_change ? 'revert_no_change' : 'revert');
  if (!back.p.no_change) {
    // The host no longer reads as the change left it (the revert changed it since): a second revert is drift, whatever the probes read.
    await rejectsWith(agent.call('preview', { action_name: 'RevertTransaction', params: { transaction_id: tx } }), 'conflict', 'drifted');
    shown(sc.action, 'drift_by_revert');
  }
  await sc.settle?.(view);
  return w.lifecycle(agent, human, sc.action, sc.params);
}

/**
 * The first file the change touched, changed from outside (a line appended, one its line probe
 * reads when it reads only some, or the file made when the change deleted it): the revert is
 * refused as drifted, naming it. The file is then put back.
 * A change that touches no file (only live state) shows its drift in the unit tests' instead.
 */
async function driftRefusesRevert(view: SandboxView, agent: Principal, sc: Scenario, tx: string, probes: StateProbe[]): Promise<void> {
  const probe = probes.find((p): p is { file: string; lines?: string } => 'file' in p);
  if (!probe) return;
  const file = probe.file;
  // A line probe reads only the lines that start with its prefix: the drift is one more of them.
  const drift = probe.lines !== undefined ? `${probe.lines}drift\n` : '# drift\n';
  const was = await view.readFile(file);
  if (was === null) await view.writeFile!(file, probe.lines !== undefined ? drift : 'drift\n');
  else await view.writeFile!(file, `${was}\n${drift}`);
  try {
    await rejectsWith(agent.call('preview', { action_name: 'RevertTransaction', params: { transaction_id: tx } }), 'conflict', 'drifted');
    shown(sc.action, 'drift');
  } finally {
    if (was === null) await view.run('/usr/bin/rm', ['-f', '--', file]);
    else await view.writeFile!(file, was); // an existing file keeps its mode and owner
  }
}

function registerCoverage(): void {
  test('every catalogue action has at least one real execution scenario', { skip: only ? 'AIRLOCK_SCENARIOS is set' : false }, () => {
    const covered = new Set([...loaded.values()].flatMap((f) => f.scenarios).map((s) => s.action));
    // Actions for Fedora and RHEL only cannot run on the Debian test bed: catalogue-rhel.test.ts checks their argv.
    // RevertTransaction runs in every change scenario's rounds (revertedAndRedone), on the transaction that scenario made.
    // RebootHost ends the test bed the scenarios share: test/integration/reboot.test.ts runs it on one that boots again.
    const missing = [...CATALOGUE.values()].filter((a) => !covered.has(a.name) && !argvOnly(a) && a.name !== 'RevertTransaction' && a.name !== 'RebootHost').map((a) => a.name);
    assert.deepEqual(missing, [], `actions without a scenario in test/scenarios: ${missing.join(', ')}`);
    const unknown = [...covered].filter((a) => !CATALOGUE.has(a));
    assert.deepEqual(unknown, [], 'scenarios name actions that do not exist');
  });
  // A host that cannot carry the action out at all (LoadModule: the test bed's kernel loads no module) shows it by its refusal only; its unit tests show its undo.
  test('every change that declares a rollback has it shown: a scenario makes it fail and reverts it (issue 27)', { skip: only ? 'AIRLOCK_SCENARIOS is set' : false }, () => {
    const all = [...loaded.values()].flatMap((f) => f.scenarios);
    const unshown = [...CATALOGUE.values()].filter((a) => !a.readOnly && a.rollback.class !== 'none' && !argvOnly(a) && a.name !== 'RevertTransaction' && !all.some((s) => s.action === a.name && (rollbackRounds(s, a) || s.refused !== undefined))).map((a) => a.name);
    assert.deepEqual(unshown, [], `actions whose rollback class no scenario shows: ${unshown.join(', ')}`);
  });
}

function registerFamily(family: string): void {
  const { scenarios, host } = loaded.get(family)!;
  describe(`${family} actions on ${host === 'testbed' ? 'the booted Debian test bed' : 'a throwaway overlay of this host'}`, () => {
    let w: World;
    let agent: Principal;
    let human: Principal;
    let view: SandboxView;
    before(async () => {
      w = await startWorld(['--test-fault-file', FAULT_FILE], host);
      agent = await w.as('agent', ['airlock-admin']);
      human = await w.as('alice', ['airlock-admin', 'airlock-approvers']);
      view = {
        run: (p, a) => w.d.box.run(p, a),
        readFile: (p) => w.d.box.readFile(p),
        writeFile: (p, content) => writeFile(`/proc/${w.d.box.pid}/root${p}`, content, { mode: 0o644 }),
      };
    });
    after(() => w?.close());

    for (const sc of scenarios) {
      test(`${sc.action}${sc.title ? `: ${sc.title}` : ''}`, async () => {
        await sc.setup?.(view);
        if (sc.refused) {
          await rejectsWith(agent.call('preview', { action_name: sc.action, params: sc.params }), 'unsupported_platform', sc.refused);
          return sc.check(view, null as unknown as ResultEnvelope);
        }
        const declared = CATALOGUE.get(sc.action)!;
        const rounds = rollbackRounds(sc, declared);
        // Issue 27: the change made to fail after its last step must leave the state as it found it.
        if (rounds) await failedIsRolledBack(w, view, agent, human, sc);
        const first = await w.lifecycle(agent, human, sc.action, sc.params);
        // ...and once it succeeded, a revert must bring that state back, and be refused once the host drifted.
        const { p, r } = rounds && FINISHED_WELL.includes(first.r.state) && !first.p.no_change ? await revertedAndRedone(w, view, agent, human, sc, first) : first;
        // The no-shell invariant at the level of the argv the daemon really built and ran.
        const { mechanism } = p.proposed_change as { mechanism: DescribedStep[] };
        for (const s of mechanism) if (s.kind === 'command') assert.equal(shellViolation(s.program!, s.args!), null, `${sc.action}: ${s.program} ${s.args!.join(' ')}`);
        // A path the agent named and a program gets by name is declared, so the trusted-path rule checks it.
        for (const s of mechanism) assert.deepEqual(undeclaredPaths(sc.action, sc.params, s), [], `${sc.action}: ${s.program} gets these paths by name without declaring them (CommandStep.paths)`);
        // What the reads rule relies on, at the level of the real mechanism: a network program only in a read that declares it.
        for (const s of mechanism) if (s.kind === 'command' && NETWORK_PROGRAMS.includes(s.program as ProgramName)) assert.ok(declared.readOnly && declared.reachesNetwork, `${sc.action} runs ${s.program} but does not declare reachesNetwork`);
        // Only secrets are masked (issue 23): an approver is never shown a hidden value that does not exist.
        assert.deepEqual(maskedWithoutSecret(declared, p), [], `${sc.action}: its preview masks what is not a declared secret`);
        assert.equal(r.state, sc.expect ?? 'Succeeded', `${r.summary} ${JSON.stringify(r.error ?? '')}`);
        assert.equal(r.changed, !declared.readOnly && !p.no_change, 'changed: true for every real change, false for a read');
        // The same again before the check, which may undo what a setup did (holds, files): a no-op changes nothing it looks at.
        await sc.settle?.(view);
        if (!declared.readOnly && r.state === 'Succeeded') await repeatIsNoChange(sc, agent);
        await sc.check(view, r);
      });
    }
  });
}

/**
 * Where a preview shows a masker's marker without a secret to hide: a value is secret only
 * when the action declares it (secretParams, shown masked wherever it appears) or the action
 * is a sensitive read (it shows what the host holds, secrets included).
 */
export function maskedWithoutSecret(a: AnyAction, p: PreviewEnvelope): string[] {
  if ((a.readOnly && a.sensitive) || (a.secretParams?.length ?? 0) > 0) return [];
  const fields = { summary: p.summary, warnings: p.warnings, side_effects: p.side_effects, current_state: p.current_state, proposed_change: p.proposed_change, params: p.params };
  const out: string[] = [];
  for (const [field, value] of Object.entries(fields)) {
    const text = JSON.stringify(value) ?? '';
    for (const m of text.matchAll(/.{0,40}⟦secret:[a-z_]+⟧/g)) out.push(`${field}: ${m[0]}`);
  }
  return out;
}
