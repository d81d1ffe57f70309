/**
 * The pre-state a change keeps for its revert (issue 27): for each kind of change run through a
 * real daemon in a throwaway overlay of / (a person approving, as in the tests), the bytes of
 * files it kept (result.revert.kept_bytes) beside the bytes of those files as they were (the
 * least any revert must keep to put them back byte for byte: the limit), and the state probes
 * read before and after it, with the bytes they add.
 */
import { startWorld } from '../test/support/world.js';
import { progress } from './measure.js';

/** Changes an overlay without systemd can run, one per kind: files rebuilt, files written, account files through commands, live kernel state. */
const CHANGES: Array<{ kind: string; action: string; params: Record<string, unknown>; files: string[] }> = [
  { kind: 'a hosts entry (a file rebuilt)', action: 'AddHostsEntry', params: { ip: '10.77.0.1', names: ['bench-prestate.internal'] }, files: ['/etc/hosts'] },
  { kind: 'a group (account files, by command)', action: 'CreateGroup', params: { group: 'benchkeep' }, files: [] },
  { kind: 'a user (account files and a home, by command)', action: 'CreateUser', params: { user: 'benchkept' }, files: [] },
  { kind: 'a membership (account files, by command)', action: 'AddUserToGroup', params: { user: 'benchkept', group: 'benchkeep' }, files: [] },
  { kind: 'a sysctl (a drop-in and the live value)', action: 'SetSysctl', params: { key: 'kernel.msgmax', value: '9137' }, files: ['/etc/sysctl.d/60-airlock-kernel.msgmax.conf'] },
  { kind: 'the hostname (a file)', action: 'SetHostname', params: { hostname: 'airlock-bench' }, files: ['/etc/hostname'] },
];

export interface PrestateRow {
  kind: string;
  action: string;
  rollback: string;
  probes: number;
  keptBytes: number;
  /** The bytes of the files it kept, as they were before it: the least a byte-exact revert keeps. */
  limitBytes: number;
  /** What the probes add: each one's label, and its hash before and after (hex). */
  stateBytes: number;
  available: boolean;
}

export async function prestateBench(cleanups: Array<() => unknown>): Promise<PrestateRow[]> {
  progress('pre-state kept per change: a daemon in a throwaway overlay of / ...');
  const w = await startWorld();
  cleanups.push(() => w.close());
  const agent = await w.as('bench-agent', ['airlock-admin']);
  const human = await w.as('bench-alice', ['airlock-admin', 'airlock-approvers']);
  const rows: PrestateRow[] = [];
  for (const c of CHANGES) {
    const before = await Promise.all(c.files.map((f) => w.d.box.readFile(f)));
    const { p, r } = await w.lifecycle(agent, human, c.action, c.params);
    if (r.state !== 'Succeeded') throw new Error(`${c.action}: ${r.summary}`);
    const detail = await agent.call('transaction.get', { transaction_id: p.transaction_id });
    const revert = (detail.result as { revert?: { available: boolean; probes: unknown[]; kept_bytes: number } }).revert;
    rows.push({
      kind: c.kind,
      action: c.action,
      rollback: p.rollback?.class ?? '?',
      probes: revert?.probes.length ?? 0,
      keptBytes: revert?.kept_bytes ?? 0,
      limitBytes: before.reduce((n, t) => n + (t === null ? 0 : Buffer.byteLength(t)), 0),
      stateBytes: revert ? Buffer.byteLength(JSON.stringify(revert.probes)) + 2 * 2 * 64 * revert.probes.length : 0,
      available: revert?.available ?? false,
    });
  }
  return rows;
}
