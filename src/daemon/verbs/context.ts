/**
 * What every verb works with (src/daemon/verbs/*.ts): the store, the host, the executor, the
 * policy in force (a reload replaces it, and the token table with it), the receipts held for
 * their requesters, the waits to wake, the notifier, the clock, and the one way each log entry
 * a verb writes is built. main.ts builds one for the daemon; a unit test builds one over a
 * fixture host. Who may call a verb is decided before it runs (src/daemon/dispatch.ts): the
 * context decides nothing of that, it only says who the caller is (`caller`).
 */
import { existsSync } from 'node:fs';
import type { KeyObject } from 'node:crypto';
import type { Host } from '../../catalogue/action.js';
import { CATALOGUE } from '../../catalogue/index.js';
import { warmActionMetadata } from '../../catalogue/metadata.js';
import { entryDraft, type EntryDraft, type EntryKind, type EntryPrincipal } from '../../audit/entry.js';
import type { EntryDetails } from '../../audit/entry-details.js';
import type { SigningKey } from '../../audit/keys.js';
import { AirlockError, fail } from '../../protocol/errors.js';
import type { AuditPublicKey } from '../../protocol/messages.js';
import type { Risk } from '../../protocol/risk.js';
import type { Policy } from '../../policy/policy.js';
import type { Method } from '../../protocol/methods.js';
import type { Store, TxRecord } from '../../store/store.js';
import type { Approval, Caller } from '../authz.js';
import type { NoticeSink } from '../output-stream.js';
import type { DiskSpace } from '../disk-space.js';
import type { Executor } from '../executor.js';
import { principalName, type Identity } from '../identity.js';
import type { KeyRotator } from '../key-rotation.js';
import type { NotifyEvent } from '../notify.js';
import { usePseudonyms } from '../output.js';
import type { SecondFactor } from '../second-factor.js';
import { Passkeys } from '../passkeys.js';
import { SessionGrants } from '../session-grants.js';
import { ConsoleSessions } from '../console-sessions.js';
import { Slots } from '../slots.js';
import { TokenTable } from '../tokens.js';
import { TotpEnrolment } from '../totp-enrolment.js';
import type { TreeHeads } from '../tree-heads.js';
import { Waiters } from '../waiters.js';
import { HeldReceipts } from './held-receipts.js';

/** The approval key as rotation changes it (key-files.ts). */
export interface ApprovalKeys {
  readonly current: SigningKey;
  /** The public keys it had before the current one (read when a receipt fails: rare). */
  retired(): KeyObject[];
}

/** What the audit verbs serve besides the store: tree heads and proofs, the public key, the checkpoint file. */
export interface AuditSources {
  /** Signs tree heads and builds proofs for `audit.tree_head`, `audit.prove`, `audit.consistency`. */
  treeHeads: TreeHeads;
  /** The current audit public key, the key history and the log id (they change when the key rotates). */
  publicKey: () => AuditPublicKey;
  /** The checkpoint file that `audit.checkpoints` serves. */
  checkpointPath: string;
}

export interface ContextOptions {
  store: Store;
  host: Host;
  executor: Executor;
  /** The approval key, or (the daemon) its rotating files: the current key and the ones it replaced. */
  approvalKey: SigningKey | ApprovalKeys;
  /** Serves `keys.rotate` (the daemon; absent in tests that build a context alone). */
  rotator?: KeyRotator;
  /** Serves the audit methods (the daemon; absent in tests that build a context alone). */
  audit?: AuditSources;
  /** The policy in force at start; `policy.reload` replaces it (root only). */
  policy: Policy;
  /** Where the policy is re-read from on reload. */
  policyPath: string;
  /** The token file, read at start and re-read with the policy. */
  tokensPath: string;
  /** Tells people about a pending approval, a proposal or a reset second factor (fire and forget). */
  notify?: (policy: Policy, event: NotifyEvent) => void;
  /** How long a preview waits for approval, and a receipt for execution. */
  approvalTtlMs: number;
  receiptTtlMs: number;
  secondFactor: SecondFactor;
  /** Names this host to a person's authenticator (passkeys). */
  hostName?: string;
  /** The key of the policy's pseudonyms (mask.key). */
  pseudonymKey: Buffer;
  now?: () => number;
  /** The daemon's own log (stderr / journal). */
  log?: (msg: string) => void;
  /** Free space in the state directory (the daemon; absent in tests that build a context alone). */
  space?: DiskSpace;
  /** Tests only (`airlock daemon --test-fault-file`): while this file exists, every change fails after its last step. */
  testFaultFile?: string;
}

export const iso = (ms: number) => new Date(ms).toISOString();

/** The refusal of a transaction id the store does not hold (the dispatcher's, and a verb's reading one again). */
export function noSuchTransaction(id: string): never {
  throw new AirlockError('validation', 'no_such_transaction', `there is no transaction ${id}`, 'see `airlock history`', { next: { method: 'history', params: {} } });
}

/** Who an entry is by: the peer, and for a root peer the person behind it (or that there is none). */
export function entryPrincipal(who: Identity): EntryPrincipal {
  const base = { uid: who.uid, user: who.user, role: who.role };
  if (who.via === 'console' || who.via === 'fleet') return { ...base, via: who.via };
  if (who.uid !== 0 || who.via === 'token') return base;
  return { ...base, person: who.person ? principalName(who) : `none: ${who.rootPeer?.noPerson ?? 'unknown'}`, sudo_uid: who.rootPeer?.sudoUid ?? null, login_uid: who.rootPeer?.loginUid ?? null };
}

/** Runs a request as `who` through the dispatcher's door (dispatch.ts serve). */
export type Relay = (who: Identity, method: Method, params: Record<string, unknown>, signal: AbortSignal, notice: NoticeSink) => Promise<unknown>;

export class VerbContext {
  readonly store: Store;
  readonly host: Host;
  readonly executor: Executor;
  readonly secondFactor: SecondFactor;
  readonly rotator: KeyRotator | undefined;
  readonly audit: AuditSources | undefined;
  readonly space: DiskSpace | undefined;
  readonly approvalTtlMs: number;
  readonly receiptTtlMs: number;
  readonly policyPath: string;
  readonly tokensPath: string;
  readonly now: () => number;
  readonly log: (msg: string) => void;
  /** Requesters waiting for a decision on their transactions (`transaction.wait`). */
  readonly waiters = new Waiters();
  /** The receipt of each approved transaction, for its requester (in memory: a restart forgets them, the approver still has theirs). */
  readonly heldReceipts = new HeldReceipts();
  /**
   * Changes run one at a time (execute.ts): each re-reads the host after the previous one
   * finished, so two approved edits of one file cannot both build on the same old content.
   */
  readonly changeLane = new Slots(1);
  readonly enrolment: TotpEnrolment;
  /** Passkey ceremonies: registrations under way, and the verification of approvals (passkeys.ts). */
  readonly passkeys: Passkeys;
  /** People signed in at the web console, and their sign-in challenges (console-sessions.ts). */
  readonly consoleSessions: ConsoleSessions;
  /** The "this session" lane: identical requests a person let through for a while (session-grants.ts; a reload ends them). */
  readonly sessionGrants: SessionGrants;
  /**
   * Every action's metadata (its schema as JSON Schema), made one action per turn as the daemon
   * starts: made all at once by the first actions.list, it held the event loop for hundreds of ms.
   */
  readonly metadataReady = warmActionMetadata(CATALOGUE.values());
  private policyInForce: Policy;
  /** Runs a request as another identity through the same door (the dispatcher's serve): what console.call relays. */
  private relayTo: Relay | null = null;
  private tokenTable: TokenTable;

  constructor(private readonly o: ContextOptions) {
    this.store = o.store;
    this.host = o.host;
    this.executor = o.executor;
    this.secondFactor = o.secondFactor;
    this.rotator = o.rotator;
    this.audit = o.audit;
    this.space = o.space;
    this.approvalTtlMs = o.approvalTtlMs;
    this.receiptTtlMs = o.receiptTtlMs;
    this.policyPath = o.policyPath;
    this.tokensPath = o.tokensPath;
    this.now = o.now ?? Date.now;
    this.log = o.log ?? (() => {});
    this.policyInForce = o.policy;
    usePseudonyms(o.pseudonymKey, o.policy.pseudonyms);
    this.tokenTable = TokenTable.load(o.tokensPath);
    this.enrolment = new TotpEnrolment({ store: o.store, factor: o.secondFactor, host: o.host, now: this.now, name: principalName, principal: entryPrincipal });
    this.consoleSessions = new ConsoleSessions(this.now);
    this.sessionGrants = new SessionGrants(this.now);
    this.passkeys = new Passkeys({ store: o.store, now: this.now, hostName: o.hostName ?? 'this host', settings: () => this.policyInForce.passkeys });
  }

  /** Whether the next change is to fail after its last step (a test daemon's fault file exists; never on a real host). */
  injectFailure(): boolean {
    return this.o.testFaultFile !== undefined && existsSync(this.o.testFaultFile);
  }

  get policy(): Policy {
    return this.policyInForce;
  }

  get tokens(): TokenTable {
    return this.tokenTable;
  }

  /** The dispatcher gives its door to console.call here, once, as the daemon starts. */
  useRelay(relay: Relay): void {
    this.relayTo = relay;
  }

  /** A request of `who` (a person signed in at the console) through the one door. */
  relay(who: Identity, method: Method, params: Record<string, unknown>, signal: AbortSignal, notice: NoticeSink): Promise<unknown> {
    if (!this.relayTo) throw new AirlockError('integrity', 'internal', 'the console relay is not wired to the door');
    return this.relayTo(who, method, params, signal, notice);
  }

  /** A reloaded policy and token file take effect at once (policy.ts verb, after its entry is written). */
  replacePolicy(next: Policy, tokens: TokenTable): void {
    this.policyInForce = next;
    // A grant was approved under the policy it replaces (who approves, at which risk): it ends here.
    this.sessionGrants.clear();
    usePseudonyms(this.o.pseudonymKey, next.pseudonyms);
    this.tokenTable = tokens;
  }

  /** The caller as authz.ts judges it: built once per request, by the dispatcher. */
  caller(who: Identity): Caller {
    const relay = who.via !== 'token' && who.via !== 'console' && who.via !== 'fleet' && who.uid > 0 && who.user === this.policyInForce.console.user;
    return { ...who, unattended: this.isUnattended(who), ...(relay ? { console: true } : {}) };
  }

  private isUnattended(who: Identity): boolean {
    // Through sudo, the person behind it: an unattended user's sudo stays unattended.
    const user = who.uid === 0 ? who.person?.user : who.user;
    return who.unattended === true || (who.via !== 'token' && user !== undefined && this.policyInForce.unattended.includes(user));
  }

  /** Tells whoever the policy in force names (fire and forget). */
  notify(event: NotifyEvent): void {
    this.o.notify?.(this.policyInForce, event);
  }

  /** The approval key new receipts are signed with (the one a rotation made current). */
  get approvalKey(): SigningKey {
    const k = this.o.approvalKey;
    return 'privateKey' in k ? k : k.current;
  }

  retiredApprovalKeys(): KeyObject[] {
    const k = this.o.approvalKey;
    return 'privateKey' in k ? [] : k.retired();
  }

  /** Wakes the requester's waits on this transaction: it changed in the store. */
  changed(id: string): void {
    this.waiters.changed(id);
  }

  /** The stored transaction `id` (well formed already: its parameter schema checked it), or validation/no_such_transaction. */
  async transaction(id: string): Promise<TxRecord> {
    return (await this.store.getTransaction(id)) ?? noSuchTransaction(id);
  }

  /** An entry by `who` about one transaction. */
  entry<K extends EntryKind>(kind: K, who: Identity, action: string, risk: Risk, hash: string, txId: string, details: EntryDetails[K]): EntryDraft {
    return entryDraft(kind, { transaction_id: txId, action_name: action, risk, request_hash: hash, principal: entryPrincipal(who) }, details);
  }

  /** An entry by the daemon itself (expiry, reconciliation) about one transaction. */
  systemEntry<K extends EntryKind>(kind: K, tx: TxRecord, details: EntryDetails[K]): EntryDraft {
    return entryDraft(kind, { transaction_id: tx.id, action_name: tx.actionName, risk: tx.risk, request_hash: tx.requestHash, principal: null }, details);
  }

  /**
   * An approved execute's write, kept: refused for want of space, it is tried once more after
   * the reserve is released (the store kept nothing of the failed one, so trying again is safe).
   */
  async durably<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (e) {
      if (!this.space?.writeFailed(e)?.retry) throw e;
      return write();
    }
  }
}

/** A request as a verb receives it: its caller (built once), its parameters (parsed by the method's schema), and its connection's ends. */
export interface Request<P> {
  caller: Caller;
  params: P;
  /** Aborts when the connection that asked closes (a wait lets go of what it holds then). */
  signal: AbortSignal;
  /** Where output notices of a running execute go (the requesting connection; output-stream.ts). */
  notice: NoticeSink;
}
/** A request naming a transaction: loaded, and its transaction rule decided, before the verb runs. */
export interface TxRequest<P> extends Request<P> {
  tx: TxRecord;
  /** For the `approver` rule: with which factor, as which person (authz.ts mayApprove). */
  approval?: Approval;
}
