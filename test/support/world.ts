/**
 * A test world: a real daemon in a throwaway overlay host, and principals that are
 * real Unix users (created in the overlay) talking to it from their own processes,
 * so every role decision rests on the kernel's peer credentials.
 */
import { grantOf } from '../../src/client/client.js';
import type { LogEntry } from '../../src/audit/entry.js';
import { startSandboxDaemon, type SandboxDaemon } from '../../src/sandbox/daemon.js';
import { Principal } from '../../src/sandbox/principal.js';
import { Authenticator } from '../../src/sandbox/authenticator.js';
import type { PreviewEnvelope, ApprovalGrant, ResultEnvelope, PolicyReloaded } from '../../src/protocol/messages.js';
import type { UnixIdentity } from '../../src/sandbox/principal.js';
import { enrolmentCheck } from '../../src/protocol/totp.js';

export interface World {
  d: SandboxDaemon;
  /** Creates (once) a user with these groups and a client process running as it; approvers enrol a TOTP factor unless enrol is false. */
  as(name: string, groups: string[], opts?: { enrol?: boolean }): Promise<Principal>;
  /**
   * `who` enrols its own second factor and proves it with a first code, as a person does with
   * `airlock totp enroll`: the world's first approver through sudo in their own login session
   * (the host has no factor yet), every later one from their own account, approved by an
   * enrolled approver with a fresh code. Returns the secret (now in `codes`).
   */
  enrol(who: Principal, name: string): Promise<string>;
  /**
   * Approvers created together with `groups`, each enrolling their own factor, one sponsor's code
   * vouching for them all (one code, not one each, so no approver's codes are spent vouching for
   * the next). Each holds two codes a step: a file whose tests take turns among several
   * approvers waits for no step where who approves does not matter.
   */
  approvers<const Names extends readonly string[]>(names: Names, groups: string[]): Promise<{ -readonly [K in keyof Names]: Principal }>;
  /** The approvers' authenticator apps: every approver `as` creates has enrolled itself. */
  codes: Authenticator;
  /** Root's own client with nobody behind it (no login uid, like a system service): it previews and denies, no more. */
  root(): Promise<Principal>;
  /**
   * A root client in `name`'s login session (its audit login uid is theirs, as after `sudo`
   * from their login): the daemon names `name` behind it. `name` was created with `as`.
   */
  rootAs(name: string): Promise<Principal>;
  /**
   * The policy reloaded as it is done for real: an admin approver (a "keeper" the world
   * creates, or a deputy keeper when the current codes are spent) through sudo, with their code.
   */
  reload(): Promise<PolicyReloaded>;
  /** `approver` approves `p`, typing a fresh TOTP code when its risk needs one (waiting for the next step if need be). */
  approve(approver: Principal, p: PreviewEnvelope): Promise<ApprovalGrant>;
  /**
   * `p` approved by `approver`, or, when its risk needs a code and the approver has spent this
   * time step's, by a deputy with the same groups (as lifecycle does): for tests in which who
   * approves does not matter, so they need not wait 30 seconds for the next code.
   */
  approveSoon(approver: Principal, p: PreviewEnvelope): Promise<ApprovalGrant>;
  /** The signed log's entries of one transaction, in order, read by root through the daemon (audit.entries, page by page). */
  entriesOf(transactionId: string): Promise<LogEntry[]>;
  /**
   * preview by `agent`, approve by `approver`, execute by `agent`. When the approver has
   * spent the codes of the current time step, a deputy with the same groups approves,
   * so scenario runs need not wait 30 seconds per High action.
   */
  lifecycle(agent: Principal, approver: Principal, action: string, params: Record<string, unknown>): Promise<{ p: PreviewEnvelope; g: ApprovalGrant; r: ResultEnvelope }>;
  /**
   * Ends the root clients rootAs started inside the booted test bed (a later rootAs starts new
   * ones). Before a reboot of the test bed: its shutdown stops every process in it (SIGSTOP
   * first), nsenter outside then stops itself with its child and never reaps it, and the
   * container's init waits for that child forever.
   */
  closeRootClients(): Promise<void>;
  /** Stops the daemon; `keepSharedAs` keeps its store, keys and checkpoints there. */
  close(opts?: { keepSharedAs?: string }): Promise<void>;
}

/** Deputies enrolled at once when an approver's codes run out (each brings a code or two per time step). */
const DEPUTIES = 6;

/** A world on a throwaway overlay of this host (default) or on the booted Debian test bed. */
export async function startWorld(daemonArgs: string[] = [], host: 'overlay' | 'testbed' = 'overlay', opts: { policy?: string; tokens?: string; state?: string; reboots?: number } = {}): Promise<World> {
  const d = await startSandboxDaemon({ daemonArgs, host, ...opts });
  const principals = new Map<string, Principal>();
  const names = new Map<Principal, { name: string; groups: string[] }>();
  const identities = new Map<string, UnixIdentity>();
  const rootClients = new Map<string, Principal>();
  const codes = new Authenticator();
  let rootClient: Principal | undefined;
  const root = async () => (rootClient ??= Principal.spawn({ uid: 0, gid: 0, groups: [0] }, d.socket));
  /**
   * Enrolment as on a real host: the host's first factor is the world's registrar's, enrolled
   * through sudo in its own login session; every approver after it enrols from their own
   * account and proves the secret with a first code, and an enrolled approver (the registrar
   * first, so a test's approvers keep their codes) vouches for them with a fresh code, for up
   * to MAX_APPROVED_AT_ONCE at a time. `sponsors` lists who holds a factor, in enrolment order.
   */
  const sponsors: string[] = [];
  /** Each enrolled secret, for the check code its person reads out to the sponsor. */
  const secrets = new Map<string, string>();
  const prove = async (client: Principal, name: string) => {
    const { secret } = await client.call('totp.enroll', {});
    codes.add(name, secret);
    secrets.set(name, secret);
    await client.call('totp.confirm', { code: await codes.code(name) });
    return secret;
  };
  const registrar = async () => {
    if (sponsors.length > 0) return;
    await as('registrar', ['airlock-observer', 'airlock-approvers'], { enrol: false });
    await prove(await rootAs('registrar'), 'registrar');
    sponsors.push('registrar');
  };
  const vouch = async (users: string[]) => {
    for (;;) {
      for (const sponsor of sponsors) {
        const code = codes.freshCode(sponsor);
        if (code) return principals.get(sponsor)!.call('totp.approve', { enrolments: users.map((user) => ({ user, check: enrolmentCheck(secrets.get(user)!) })), totp_code: code });
      }
      await new Promise((r) => setTimeout(r, 1000)); // every holder spent this step's codes: the next step's
    }
  };
  /** Creates these users with `groups`, each enrolling its own factor; one sponsor's code vouches for them all. */
  const enrolMany = async (users: string[], groups: string[]) => {
    await registrar();
    for (const name of users) await prove(await as(name, groups, { enrol: false }), name);
    await vouch(users);
    sponsors.push(...users);
  };
  const enrol = async (who: Principal, name: string) => {
    await registrar();
    const secret = await prove(who, name);
    await vouch([name]);
    sponsors.push(name);
    return secret;
  };
  const as = async (name: string, groups: string[], opts: { enrol?: boolean } = {}) => {
    let p = principals.get(name);
    if (!p) {
      const id = await d.addUser(name, groups);
      identities.set(name, id);
      p = Principal.spawn(id, d.socket);
      principals.set(name, p);
      names.set(p, { name, groups });
      if (groups.includes('airlock-approvers') && opts.enrol !== false) await enrol(p, name);
    }
    return p;
  };
  const rootAs = async (name: string) => {
    const id = identities.get(name);
    if (!id) throw new Error(`rootAs: create ${name} with as() first`);
    let p = rootClients.get(name);
    if (!p) {
      // On the booted test bed a root peer outside the container has no pidfd the daemon can read: start it inside.
      p = Principal.spawnRootInSessionOf(id.uid, d.socket, host === 'testbed' ? ['/usr/bin/nsenter', '-t', String(d.box.pid), '-a', '--'] : []);
      rootClients.set(name, p);
    }
    return p;
  };
  const reload = async (): Promise<PolicyReloaded> => {
    for (let k = 1; ; k++) {
      const name = k === 1 ? 'keeper' : `keeper-${k}`;
      await as(name, ['airlock-admin', 'airlock-approvers']);
      const code = codes.freshCode(name);
      if (code) return (await rootAs(name)).call('policy.reload', { totp_code: code });
    }
  };
  const needsCode = (p: PreviewEnvelope) => p.risk === 'high';
  // The receipt (grantOf): a test of an approval only recorded ([approval] high = 2) calls `approve` itself.
  const grant = async (who: Principal, p: PreviewEnvelope, totp_code?: string) =>
    grantOf(await who.call('approve', { transaction_id: p.transaction_id, preview_digest: p.preview_digest, ...(totp_code ? { totp_code } : {}) }));
  const approve = async (who: Principal, p: PreviewEnvelope) => {
    const name = names.get(who)?.name;
    return grant(who, p, needsCode(p) && name && codes.has(name) ? await codes.code(name) : undefined);
  };
  /**
   * The approver, or the first deputy (alice-2, alice-3, ...) with a code left in this time step;
   * deputies are enrolled DEPUTIES at a time, with one sponsor's code for them all.
   */
  const approverWithCode = async (who: Principal): Promise<[Principal, string]> => {
    const { name, groups } = names.get(who)!;
    for (let k = 1; ; k++) {
      const deputyName = k === 1 ? name : `${name}-${k}`;
      if (!principals.has(deputyName)) await enrolMany(Array.from({ length: DEPUTIES }, (_, i) => `${name}-${k + i}`), groups);
      const code = codes.freshCode(deputyName);
      if (code) return [principals.get(deputyName)!, code];
    }
  };
  const approveSoon = async (approver: Principal, p: PreviewEnvelope): Promise<ApprovalGrant> => {
    if (!needsCode(p) || !codes.has(names.get(approver)?.name ?? '')) return grant(approver, p);
    const [who, code] = await approverWithCode(approver);
    return grant(who, p, code);
  };
  return {
    d,
    codes,
    root,
    rootAs,
    reload,
    as,
    enrol,
    approvers: async <const Names extends readonly string[]>(names: Names, groups: string[]) => {
      await enrolMany([...names], groups);
      return names.map((n) => principals.get(n)!) as { -readonly [K in keyof Names]: Principal };
    },
    approve,
    approveSoon,
    entriesOf: async (id) => {
      const rows: Array<{ body: string }> = [];
      for (let after = 0; ; ) {
        const page = await (await root()).call('audit.entries', { after_seq: after });
        rows.push(...page.rows);
        if (page.next_after_seq === null) break;
        after = page.next_after_seq;
      }
      return rows.map((r) => JSON.parse(r.body) as LogEntry).filter((e) => e.transaction_id === id);
    },
    lifecycle: async (agent, approver, action, params) => {
      const p = await agent.call('preview', { action_name: action, params });
      // The policy approved it (non-sensitive reads by default), or a person (a deputy when the approver's codes are spent).
      const g: ApprovalGrant = p.auto_approval ?? (await approveSoon(approver, p));
      const r = await agent.call('execute', { transaction_id: p.transaction_id, action_name: action, params: p.params, receipt: g.receipt });
      return { p, g, r };
    },
    closeRootClients: async () => {
      const ending = [...rootClients.values()].map((p) => p.end());
      rootClients.clear();
      await Promise.all(ending);
    },
    close: async (opts) => {
      for (const p of principals.values()) p.close();
      rootClient?.close();
      for (const p of rootClients.values()) p.close();
      await d.stop(opts);
    },
  };
}

/** Asserts that a promise rejects with a daemon error of this category (and code, when given). */
export async function rejectsWith(p: Promise<unknown>, category: string, code?: string): Promise<{ category: string; code: string; message: string }> {
  try {
    await p;
  } catch (e) {
    const err = e as { category?: string; code?: string; message: string };
    if (err.category !== category || (code && err.code !== code)) {
      throw new Error(`expected ${category}${code ? '/' + code : ''}, got ${err.category}/${err.code}: ${err.message}`);
    }
    return err as { category: string; code: string; message: string };
  }
  throw new Error(`expected a ${category}${code ? '/' + code : ''} error, but the call succeeded`);
}
