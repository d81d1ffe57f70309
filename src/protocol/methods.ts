/**
 * Every method the daemon serves, with its parameters and its result, in one table.
 * The two sides of the socket cannot disagree about it: the client's `call` takes
 * its parameter and result types from here, the daemon's handler table must return
 * what it says, and the welcome's `capabilities` are its keys, in this order. The
 * table is data as well as types, so test/unit/protocol-doc.test.ts can hold
 * docs/protocol.md to it (section 6 documents each method and each parameter).
 *
 * A parameter is `required` when a correct client always sends it (the daemon still
 * checks every value it receives); `optional` ones have a default or a meaning when
 * absent. Results are types only.
 */
import type { TxState } from './risk.js';
import type {
  ActionDescription,
  ApprovalGrant,
  AuditCheckpointsPage,
  AuditEntriesPage,
  AuditPublicKey,
  AuditTreeHead,
  ConsistencyProofDoc,
  InclusionProofDoc,
  KeyRotated,
  PolicyReloaded,
  PolicyView,
  PreviewResult,
  ResultEnvelope,
  StoreCheck,
  TotpConfirmed,
  TotpIssued,
  TotpResetDone,
  TotpApproved,
  TransactionDetail,
  TransactionView,
  WaitOutcome,
} from './messages.js';

/** A parameter's value type `T` (a phantom: nothing at run time but whether it is required). */
interface Param<T, R extends boolean> {
  readonly required: R;
  readonly type?: T;
}
/** A method's result type `T` (a phantom). */
interface Returns<T> {
  readonly result?: T;
}
const required = <T>(): Param<T, true> => ({ required: true });
const optional = <T>(): Param<T, false> => ({ required: false });
const returns = <T>(): Returns<T> => ({});

export const METHOD_TABLE = {
  'actions.list': { params: {}, returns: returns<ActionDescription[]>() },
  'actions.describe': { params: { action_name: required<string>() }, returns: returns<ActionDescription>() },
  preview: {
    params: { action_name: required<string>(), params: optional<Record<string, unknown>>(), proposal_id: optional<string>(), unmask: optional<boolean>() },
    returns: returns<PreviewResult>(),
  },
  'transaction.get': { params: { transaction_id: required<string>() }, returns: returns<TransactionDetail>() },
  approve: {
    params: { transaction_id: required<string>(), preview_digest: required<string>(), totp_code: optional<string>() },
    returns: returns<ApprovalGrant>(),
  },
  'totp.enroll': { params: { current_code: optional<string>() }, returns: returns<TotpIssued>() },
  'totp.confirm': { params: { code: required<string>() }, returns: returns<TotpConfirmed>() },
  'totp.reset': { params: { user: required<string>(), totp_code: optional<string>() }, returns: returns<TotpResetDone>() },
  'totp.approve': { params: { enrolments: required<{ user: string; check: string }[]>(), totp_code: optional<string>() }, returns: returns<TotpApproved>() },
  'policy.show': { params: {}, returns: returns<PolicyView>() },
  'policy.reload': { params: { totp_code: optional<string>() }, returns: returns<PolicyReloaded>() },
  inbox: { params: {}, returns: returns<TransactionView[]>() },
  execute: {
    params: { transaction_id: required<string>(), action_name: required<string>(), params: optional<Record<string, unknown>>(), receipt: required<string>() },
    returns: returns<ResultEnvelope>(),
  },
  cancel: { params: { transaction_id: required<string>() }, returns: returns<TransactionView>() },
  history: {
    params: { state: optional<TxState>(), action: optional<string>(), since: optional<string>(), limit: optional<number>() },
    returns: returns<TransactionView[]>(),
  },
  'audit.pubkey': { params: {}, returns: returns<AuditPublicKey>() },
  'transaction.wait': { params: { transaction_id: required<string>(), timeout_ms: optional<number>() }, returns: returns<WaitOutcome>() },
  deny: { params: { transaction_id: required<string>(), reason: optional<string>() }, returns: returns<TransactionView>() },
  'audit.entries': { params: { after_seq: optional<number>(), limit: optional<number>() }, returns: returns<AuditEntriesPage>() },
  'audit.checkpoints': { params: { offset: optional<number>() }, returns: returns<AuditCheckpointsPage>() },
  'store.check': { params: {}, returns: returns<StoreCheck>() },
  'audit.tree_head': { params: { size: optional<number>() }, returns: returns<AuditTreeHead>() },
  'audit.prove': { params: { transaction_id: required<string>() }, returns: returns<InclusionProofDoc>() },
  'audit.consistency': { params: { old_size: required<number>(), new_size: optional<number>() }, returns: returns<ConsistencyProofDoc>() },
  'keys.rotate': { params: { key: required<'audit' | 'approval'>() }, returns: returns<KeyRotated>() },
} as const satisfies Record<string, { params: Record<string, Param<unknown, boolean>>; returns: Returns<unknown> }>;

export type Method = keyof typeof METHOD_TABLE;

/** The methods in table order: what the welcome advertises as `capabilities`. */
export const METHODS = Object.keys(METHOD_TABLE) as Method[];

type ParamsSpec<M extends Method> = (typeof METHOD_TABLE)[M]['params'];
type ValueOf<P> = P extends Param<infer T, boolean> ? T : never;
type Flatten<T> = { [K in keyof T]: T[K] };

/** The parameter object of method M: its required keys, then its optional ones, and no others. */
export type ParamsOf<M extends Method> = [keyof ParamsSpec<M>] extends [never]
  ? Record<string, never>
  : Flatten<
      { -readonly [K in keyof ParamsSpec<M> as ParamsSpec<M>[K] extends Param<unknown, true> ? K : never]: ValueOf<ParamsSpec<M>[K]> } & {
        -readonly [K in keyof ParamsSpec<M> as ParamsSpec<M>[K] extends Param<unknown, true> ? never : K]?: ValueOf<ParamsSpec<M>[K]>;
      }
    >;

/** What method M answers with. */
export type ResultOf<M extends Method> = (typeof METHOD_TABLE)[M]['returns'] extends Returns<infer T> ? T : never;

/** The params argument of a call: optional when the method has no required parameter. */
export type ParamsArg<M extends Method> = {} extends ParamsOf<M> ? [params?: ParamsOf<M>] : [params: ParamsOf<M>];

/** The parameter names of a method and whether each is required, as docs/protocol.md must list them. */
export function methodParams(m: Method): Array<{ name: string; required: boolean }> {
  return Object.entries(METHOD_TABLE[m].params as Record<string, Param<unknown, boolean>>).map(([name, p]) => ({ name, required: p.required }));
}
