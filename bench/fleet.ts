/**
 * A simulated fleet (issue 28): FLEET_HOSTS real daemons, each in its own throwaway overlay of /
 * (no systemd, no sshd), a requester account and alice on each as real Unix users, alice's one
 * passkey registered on every host. Timed in this process, with eachHost (src/client/fleet.ts)
 * over each host's requester, which speaks to its daemon's socket directly:
 *
 *   (1) plan to all previews: the same two dependent changes (CreateGroup, then AddUserToGroup
 *       into it) proposed on every host (src/client/proposal.ts: one plan per host);
 *   (2) approval to all executed: ONE assertion by alice over fleetChallenge of every host's
 *       entry, carried to each host by its requester (approve.fleet), then the receipt collected
 *       (transaction.wait) and the plan executed on each.
 *
 * At concurrency 8 and 16 (DEFAULT_FLEET_CONCURRENCY and MAX_FLEET_CONCURRENCY), after one
 * untimed round that warms every daemon up. Beside it, the same work on one host, N times in
 * sequence: a one-entry fleet list, so each host does exactly what it does in the fleet. The
 * limit is that host's time x N spread over this machine's cores (perfect parallelism here).
 * Not in these figures: the relay and its ssh hop to each host (docs/architecture.md), which a
 * real fleet adds to every round trip; both the fleet and its one-host baseline are ssh-free.
 */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import { DEFAULT_FLEET_CONCURRENCY, eachHost, MAX_FLEET_CONCURRENCY, type HostAnswer } from '../src/client/fleet.js';
import { propose, type DaemonCalls, type ProposalStep } from '../src/client/proposal.js';
import { passkeyId, fleetChallenge, type FleetEntry } from '../src/protocol/passkey.js';
import type { ActionDescription, PreviewResult } from '../src/protocol/messages.js';
import type { ResultOf } from '../src/protocol/methods.js';
import type { Principal } from '../src/sandbox/principal.js';
import { SoftAuthenticator } from '../test/support/soft-authenticator.js';
import { startWorld, type World } from '../test/support/world.js';
import { pct, progress, vmRssKb } from './measure.js';

/** Issue 28: at least 50 daemons. `--fleet-hosts=N` or FLEET_HOSTS=N changes it (2 to 256, fleetChallenge's bound). */
export const DEFAULT_FLEET_HOSTS = 50;
/**
 * Daemons started at once: each start is a few CPU-bound node start-ups, and this machine may
 * have 2 cores. At 4, with the machine loaded by other work, 19 of 49 daemons took longer than
 * startSandboxDaemon's 30 s to open their socket (2026-12-07).
 */
const START_CONCURRENCY = 2;
/** A host whose start failed (a daemon slow to open its socket on a loaded machine) is started once more before the part gives up. */
const START_TRIES = 2;
/** The fan-outs measured: the fleet client's default, and its bound. */
export const FLEET_CONCURRENCIES = [DEFAULT_FLEET_CONCURRENCY, MAX_FLEET_CONCURRENCY] as const;
/** How long a requester waits for the receipt of an approval that has been granted already: it is held, so at once. */
const RECEIPT_WAIT_MS = 5_000;
/**
 * Memory one host needs, MB: measured on 2026-12-07, a daemon under tsx held 240 MB and its
 * requester 90 MB (alice's two processes, 90 MB each, end once her passkey is registered, a few
 * at a time). Fifty hosts are about 17 GB: the part refuses to start a fleet the machine cannot hold.
 */
const HOST_MB = 350;
/** And each host being started holds alice's two processes a while: 90 MB each. */
const STARTING_MB = 2 * 90;
const APPROVER = ['airlock-admin', 'airlock-approvers'];
const MEMBER = 'bench-member';

export function fleetHosts(argv: readonly string[] = process.argv, env = process.env): number {
  const flag = argv.find((a) => a.startsWith('--fleet-hosts='))?.slice('--fleet-hosts='.length);
  const raw = flag ?? env.FLEET_HOSTS;
  if (raw === undefined) return DEFAULT_FLEET_HOSTS;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 2 || n > 256) throw new Error(`--fleet-hosts (or FLEET_HOSTS) is a whole number from 2 to 256, not ${raw}`);
  return n;
}

interface Host {
  name: string;
  w: World;
  requester: Principal;
  /** The requester's calls as proposal.ts takes them (Principal.call's arguments are a tuple). */
  calls: DaemonCalls;
}

/** One round's times: plan to all previews, then approval (the assertion included) to all executed. */
export interface RoundTimes {
  previewMs: number;
  approveExecuteMs: number;
  totalMs: number;
}

export interface FleetBench {
  hosts: number;
  cores: number;
  startConcurrency: number;
  startS: number;
  daemonRssMb: number;
  requesterRssMb: number;
  /** Per concurrency: the fleet's round. */
  fleet: Array<{ concurrency: number } & RoundTimes>;
  /** One host, N rounds in sequence: their sum, and the median round. */
  oneSequence: RoundTimes;
  oneP50: RoundTimes;
}

const steps = (group: string): ProposalStep[] => [
  { action_name: 'CreateGroup', params: { group } },
  { action_name: 'AddUserToGroup', params: { user: MEMBER, group } },
];

/** Every host answered, or the first refusal thrown with its host named: a figure over a fleet that half failed means nothing. */
function values<T>(answers: HostAnswer<T>[], what: string): T[] {
  const bad = answers.find((a) => !a.ok);
  if (bad && !bad.ok) throw new Error(`${what} on ${bad.host}: ${bad.error.category}/${bad.error.code}: ${bad.error.message} (${answers.filter((a) => !a.ok).length} of ${answers.length} hosts failed)`);
  return answers.map((a) => (a as { value: T }).value);
}

/** MemAvailable of /proc/meminfo, MB. */
function availableMb(): number {
  const m = /^MemAvailable:\s+(\d+) kB/m.exec(readFileSync('/proc/meminfo', 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
}

export async function fleetBench(cleanups: Array<() => unknown>, n = fleetHosts()): Promise<FleetBench> {
  const need = n * HOST_MB + START_CONCURRENCY * STARTING_MB;
  const fits = Math.floor((availableMb() - START_CONCURRENCY * STARTING_MB) / HOST_MB);
  if (availableMb() < need) throw new Error(`a fleet of ${n} needs about ${(need / 1024).toFixed(1)} GB of memory and ${(availableMb() / 1024).toFixed(1)} GB is available: run it with --fleet-hosts=${Math.max(2, fits)} (or free memory)`);
  const aliceKey = new SoftAuthenticator();
  const names = Array.from({ length: n }, (_, i) => `host-${String(i + 1).padStart(3, '0')}`);
  const hosts = new Map<string, Host>();
  let exported: ResultOf<'passkey.export'> | undefined;
  // Stopped together, whatever happens, a few at a time: one after another, fifty take a while.
  const worlds: World[] = [];
  cleanups.push(() => eachHost(worlds.map((_, i) => String(i)), (i) => worlds[Number(i)]!.close(), MAX_FLEET_CONCURRENCY));

  /**
   * A daemon in its own overlay, the requester (airlock-admin, no approver) and alice, who enrols
   * the host's first factor from her own login session (through sudo, as world.ts's registrar
   * does) and registers her passkey: a new one on the first host, the same one (exported from
   * the first) on the others. Her process ends once it is registered: only the requester stays.
   */
  const startHost = async (name: string): Promise<void> => {
    const w = await startWorld();
    worlds.push(w);
    const requester = await w.as('bench-requester', ['airlock-admin']);
    await w.d.addUser(MEMBER, []);
    const alice = await w.as('alice', APPROVER, { enrol: false });
    const sudo = await w.rootAs('alice');
    const { secret } = await sudo.call('totp.enroll', {});
    w.codes.add('alice', secret);
    await sudo.call('totp.confirm', { code: await w.codes.code('alice') });
    sudo.close();
    if (exported === undefined) {
      const { options } = await alice.call('passkey.begin', {});
      await alice.call('passkey.register', { response: aliceKey.create(options) as never, name: 'bench', totp_code: await w.codes.code('alice') });
      exported = await alice.call('passkey.export', { passkey_id: passkeyId(Buffer.from(aliceKey.credentials[0]!.id).toString('base64url')) });
    } else {
      const begun = await alice.call('passkey.begin', { existing: exported });
      await alice.call('passkey.register', { existing_assertion: aliceKey.get(begun.options) as never, name: 'bench', totp_code: await w.codes.code('alice') });
    }
    alice.close();
    hosts.set(name, { name, w, requester, calls: { call: (m, p) => requester.callUnchecked(m, p) as never } });
  };

  progress(`fleet: starting ${n} daemons, each in its own overlay of /, ${START_CONCURRENCY} at a time (a requester and alice's passkey on each)...`);
  const t0 = performance.now();
  await startHost(names[0]!); // the first registers the passkey the others import
  let started = 1;
  values(
    await eachHost(
      names.slice(1),
      async (name) => {
        for (let tried = 1; ; tried++) {
          try {
            await startHost(name);
            break;
          } catch (e) {
            if (tried >= START_TRIES) throw e;
            progress(`fleet: ${name} did not start (${(e as Error).message.split('\n')[0]}); once more`);
          }
        }
        if (++started % 10 === 0) progress(`fleet: ${started} of ${n} daemons up (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
      },
      START_CONCURRENCY,
    ),
    'starting a daemon',
  );
  const startS = (performance.now() - t0) / 1000;
  const first = hosts.get(names[0]!)!;
  // The catalogue is the same on every host (one build): fetched once, so a round is the plan's own work.
  const catalogue = (await first.requester.call('actions.list', {})) as ActionDescription[];

  type Previewed = { preview: PreviewResult; entry: FleetEntry };
  const previewOn = async (h: Host, group: string): Promise<Previewed> => {
    const proposal = await propose(h.calls, steps(group), catalogue);
    if (proposal.kind !== 'plan') throw new Error(`two changes went as ${proposal.kind}, not as one plan`);
    if (!proposal.result.ok) throw Object.assign(new Error(proposal.result.error.message), proposal.result.error);
    const preview = proposal.result.preview;
    return { preview, entry: { host: h.name, tx: preview.transaction_id, preview_digest: preview.preview_digest, expires_at: Date.parse(preview.expires_at) } };
  };
  const approveAndRun = async (h: Host, { preview }: Previewed, entries: FleetEntry[], assertion: never): Promise<void> => {
    await h.requester.call('approve.fleet', { entries, assertion });
    const waited = await h.requester.call('transaction.wait', { transaction_id: preview.transaction_id, timeout_ms: RECEIPT_WAIT_MS });
    if (waited.outcome !== 'approved') throw new Error(`${h.name}: the approval's receipt was ${waited.outcome}`);
    const r = await h.requester.call('execute', { transaction_id: preview.transaction_id, action_name: preview.action_name, params: preview.params, receipt: waited.receipt });
    if (r.state !== 'Succeeded') throw new Error(`${h.name}: the plan ended ${r.state}: ${r.summary}`);
  };

  /** The whole work on `names`: plan to all previews, one assertion, approval to all executed. */
  let round = 0;
  const fleetRound = async (on: readonly string[], concurrency: number): Promise<RoundTimes> => {
    const group = `fleet-bench-${++round}`;
    const t1 = performance.now();
    const previewed = values(await eachHost(on, (name) => previewOn(hosts.get(name)!, group), concurrency), 'the plan');
    const t2 = performance.now();
    const entries = previewed.map((p) => p.entry);
    const assertion = aliceKey.assert(aliceKey.credentials[0]!, fleetChallenge(entries)) as never;
    values(await eachHost(on, (name) => approveAndRun(hosts.get(name)!, previewed[on.indexOf(name)]!, entries, assertion), concurrency), 'approval and execution');
    const t3 = performance.now();
    return { previewMs: t2 - t1, approveExecuteMs: t3 - t2, totalMs: t3 - t1 };
  };

  progress(`fleet: a warm-up round on all ${n} hosts (untimed)...`);
  await fleetRound(names, MAX_FLEET_CONCURRENCY);
  const fleet: FleetBench['fleet'] = [];
  for (const c of FLEET_CONCURRENCIES) {
    progress(`fleet: ${n} hosts at concurrency ${c}: plan to all previews, one assertion, approval to all executed...`);
    fleet.push({ concurrency: c, ...(await fleetRound(names, c)) });
  }
  progress(`fleet: the same work on one host, ${n} times in sequence...`);
  const one: RoundTimes[] = [];
  for (let i = 0; i < n; i++) one.push(await fleetRound([first.name], 1));
  const sum = (k: keyof RoundTimes) => one.reduce((s, r) => s + r[k], 0);
  const p50 = (k: keyof RoundTimes) => pct(one.map((r) => r[k]).sort((a, b) => a - b), 0.5);

  const all = [...hosts.values()];
  const daemonRssMb = all.reduce((s, h) => s + vmRssKb(h.w.d.box.pid), 0) / 1024;
  const requesterRssMb = all.reduce((s, h) => s + vmRssKb(h.requester.pid!), 0) / 1024;
  return {
    hosts: n,
    cores: availableParallelism(),
    startConcurrency: START_CONCURRENCY,
    startS,
    daemonRssMb,
    requesterRssMb,
    fleet,
    oneSequence: { previewMs: sum('previewMs'), approveExecuteMs: sum('approveExecuteMs'), totalMs: sum('totalMs') },
    oneP50: { previewMs: p50('previewMs'), approveExecuteMs: p50('approveExecuteMs'), totalMs: p50('totalMs') },
  };
}
