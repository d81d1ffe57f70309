/**
 * The daemon's journal lines (stderr, which systemd keeps in the journal): one sentence
 * per signed log entry once it is committed, so `journalctl -u airlock` reads as what
 * happened ("alice(uid 1001) approved CreateUser tx_... requested by agent(uid 1002)").
 * The signed log stays the evidence and the thing to parse (`airlock audit`); nothing
 * reads these lines but people, so they carry no JSON. Every piece of text that a client
 * or the host wrote (summaries, reasons, names, codes) is escaped in 'line' mode: an
 * agent cannot forge a line of its own, move the cursor or reorder what is read.
 */
import { escapeText } from '../protocol/escape-text.js';
import type { DetailValue, EntryDraft } from '../audit/entry.js';

/** Jobs whose start time is kept for the "in 2.1 s" of their outcome; the oldest is forgotten first. */
export const MAX_TIMED_JOBS = 1024;

/** Read loosely: each sentence escapes what it shows, whatever a detail holds. */
type Details = Readonly<Record<string, DetailValue | undefined>>;
const text = (v: unknown): string => escapeText(typeof v === 'string' ? v : JSON.stringify(v ?? null));
/** Who made an entry: the person behind a root peer when there is one, else the peer. */
function actor(e: EntryDraft): string {
  const p = e.principal;
  if (!p) return 'the daemon';
  if (p.person && !p.person.startsWith('none')) return text(p.person);
  return text(p.uid < 0 ? p.user : `${p.user}(uid ${p.uid})`); // a token principal has no uid: its name, as principalName gives it
}

/** "2.1 s", "45 s", "3 min 5 s": as long as a person needs to read it. */
export function formatDuration(ms: number): string {
  if (ms < 10_000) return `${(Math.max(0, ms) / 1000).toFixed(1)} s`;
  if (ms < 60_000) return `${Math.round(ms / 1000)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${s % 60} s`;
}

const EXPIRED_WHILE: Record<string, string> = { Previewed: 'waiting for approval', Queued: 'approved but not executed' };

/** The sentence for one entry; `tookMs` is how long its job ran, for an outcome. Pure. */
export function journalLine(e: EntryDraft, tookMs?: number): string {
  const d: Details = e.details;
  const tx = text(e.transaction_id ?? '');
  const act = text(e.action_name ?? '');
  switch (e.kind) {
    case 'daemon_started':
      return `daemon ${text(d.version)} started on ${text(d.platform)} (audit key ${text(d.audit_key_id)}, policy ${text(d.policy_source)}, ${text(d.reconciled)} interrupted job(s) reconciled)`;
    case 'preview':
      return `${actor(e)} previewed ${act} ${tx} (${text(e.risk)}): ${text(d.summary)}`;
    case 'approval_granted': {
      const by = e.principal ? actor(e) : d.session_grant ? `session grant ${text(d.session_grant)}` : `policy rule \`${text(d.rule_id)}\``;
      const factor = d.second_factor === 'passkey' ? `, with passkey ${text(d.passkey_id)}` : d.second_factor === 'totp' ? ', with a second factor' : '';
      const co = Array.isArray(d.co_approvers) && d.co_approvers.length ? `, after ${d.co_approvers.map(text).join(', ')}` : '';
      const session = e.principal && d.session_grant ? `, and identical requests under session grant ${text(d.session_grant)}` : '';
      return `${by} approved ${act} ${tx} requested by ${text(d.executor)}${factor}${co}${session}`;
    }
    case 'approval_recorded':
      return `${actor(e)} approved ${act} ${tx} (${text(d.have)} of ${text(d.needed)} approvals): it waits for another approver`;
    case 'approval_consumed':
      return `${actor(e)} presented the approval of ${act} ${tx}`;
    case 'execution_started':
      return `${actor(e)} started ${act} ${tx} (${text(d.steps)} step(s)${d.boot_id ? `, in boot ${text(d.boot_id)}` : ''})`;
    case 'outcome': {
      const took = tookMs === undefined ? '' : ` in ${formatDuration(tookMs)}`;
      const error = d.error_code ? `: ${text(d.error_category)}/${text(d.error_code)}` : '';
      return `${tx} ${act} ${text(d.state)}${took}${error}${d.rolled_back ? ', changes rolled back' : ''}`;
    }
    case 'canceled':
      return `${text(d.by)} canceled ${act} ${tx}${d.superseded_by ? ` (superseded by ${text(d.superseded_by)})` : ''}`;
    case 'denied':
      return `${text(d.by)} denied ${act} ${tx}${d.reason ? `: ${text(d.reason)}` : ''}`;
    case 'expired':
      return `${act} ${tx} expired ${EXPIRED_WHILE[String(d.previous_state)] ?? `in state ${text(d.previous_state)}`} (deadline ${text(d.deadline)})`;
    case 'reconciled':
      return `${tx} ${act} marked ${text(d.new_state)}: ${text(d.reason)}`;
    case 'reboot_reconciled':
      return `${tx} ${act} ${text(d.new_state)} after waiting for a reboot (boot ${text(d.boot_id_before)}, now ${text(d.boot_id_after)}): ${text(d.reason)}`;
    case 'totp_issued':
      return `${actor(e)} started enrolling a second factor for ${text(d.approver)}${d.replaces === 'confirmed' ? ', to replace the one it has' : ''}`;
    case 'totp_enrolled':
      return `${text(d.approver)} confirmed a second factor${d.replaced ? ', replacing the previous one' : ''}${d.approved_by ? `, approved by ${text(d.approved_by)}` : ''}${d.first_approver ? ', as the host\'s first approver (through sudo)' : ''}`;
    case 'totp_awaiting_approval':
      return `${text(d.approver)} proved a new second factor with its first code; it waits for another approver (\`airlock totp approve --user ${text(d.user)}\`) until ${text(d.expires_at)}`;
    case 'totp_lockout':
      return `${text(d.approver)} typed ${text(d.failures)} wrong codes in a row: their codes are refused until ${text(d.locked_until)}`;
    case 'totp_reset':
      return `${actor(e)} reset the second factor of ${text(d.approver)}${typeof d.passkeys === 'number' ? ` and deleted their ${text(d.passkeys)} passkey(s)` : ''}`;
    case 'passkey_registered':
      return `${actor(e)} registered passkey ${text(d.passkey_id)} (${text(d.name)}) for ${text(d.approver)}, proved with their ${text(d.factor)}; it approves for them from now on`;
    case 'session_granted':
      return `${text(d.approver)} let ${text(d.requester)}'s requests identical to ${act} ${tx} through until ${text(d.until)} (session grant ${text(d.grant_id)}, passkey ${text(d.passkey_id)})`;
    case 'session_revoked':
      return `${actor(e)} revoked session grant ${text(d.grant_id)} of ${text(d.granted_by)} (${act}, used ${text(d.uses)} time(s))`;
    case 'policy_reloaded':
      return `${actor(e)} reloaded the policy from ${text(d.source)} (digest ${text(d.new_digest).slice(0, 16)}, ${text(d.tokens)} token(s))`;
    case 'key_rotated':
      return `${actor(e)} rotated the ${text(d.key)} key of log ${text(d.log_id)}: ${text(d.old_key_id)} is replaced by ${text(d.new_key_id)}`;
    case 'archived':
      return `archived entries ${text(d.first_seq)} to ${text(d.last_seq)} of the log to ${text(d.file)} (${text(d.bytes)} bytes, sha256 ${text(d.sha256)}); they left the live store`;
    case 'storage_pressure': {
      const free = `${text(d.free_bytes)} bytes free in ${text(d.state_dir)} (min_free ${text(d.min_free_bytes)})`;
      if (d.state === 'ok') return `disk space recovered: ${free}; previews are accepted again`;
      if (d.state === 'low') return `disk space low: ${free}; new previews are refused, approved executes still run`;
      return `disk space full: ${free}; the reserve is released for approved executes and the log, new previews are refused`;
    }
    case 'compacted':
      return `compacted the details of ${text(d.count)} transaction(s) finished before ${text(d.finished_before)} (ids sha256 ${text(d.ids_sha256).slice(0, 16)})`;
    case 'history_pruned':
      return `removed ${text(d.count)} compacted transaction(s) finished before ${text(d.finished_before)} from the store; their entries stay in the log (ids sha256 ${text(d.ids_sha256).slice(0, 16)})`;
    case 'plan_step':
      return `plan ${tx} step ${text(d.step)} (${text(d.step_action)}): ${text(d.state).replace(/_/g, ' ')}${d.error_code ? `: ${text(d.error_code)}` : ''}`;
    case 'refused': {
      const times = typeof d.count === 'number' && d.count > 1 ? ` (${d.count} times since ${text(d.since)})` : '';
      return `refused ${text(d.method)}${tx ? ` of ${tx}` : ''} for ${actor(e)}: ${text(d.category)}/${text(d.code)}${times}`;
    }
  }
}

/**
 * Writes the sentence of each committed entry to `log`, timing each job from its
 * execution_started to its outcome (at most MAX_TIMED_JOBS start times are kept).
 */
export function journal(log: (line: string) => void, now: () => number = Date.now): (entries: readonly EntryDraft[]) => void {
  const started = new Map<string, number>();
  return (entries) => {
    for (const e of entries) {
      let took: number | undefined;
      if (e.kind === 'execution_started' && e.transaction_id) {
        if (started.size >= MAX_TIMED_JOBS) started.delete(started.keys().next().value!);
        started.set(e.transaction_id, now());
      }
      if (e.kind === 'outcome' && e.transaction_id) {
        const at = started.get(e.transaction_id);
        started.delete(e.transaction_id);
        if (at !== undefined) took = now() - at;
      }
      log(journalLine(e, took));
    }
  };
}
