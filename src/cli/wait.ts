/**
 * Waiting for a person, in the CLI: the requester asks the daemon to answer when someone
 * decides on its own transaction (src/client/wait-rounds.ts: `transaction.wait`, at most five
 * minutes per request, asked again until the time given, or the preview's deadline, runs out) and gets the receipt
 * itself: nobody pastes one. At a terminal a line on stderr shows how long it has waited and
 * how long the preview has left; elsewhere nothing but the outcome. Whatever ends the wait
 * other than an approval is a typed error with its exit code (docs/cli.md): a denial (3,
 * with the person's reason), an expired or canceled preview or one that already ran (4), no
 * decision within the time given (7).
 */
import type { Command } from 'commander';
import type { AirlockClient } from '../client/client.js';
import { AirlockError } from '../protocol/errors.js';
import { escapeText } from '../protocol/escape-text.js';
import type { PreviewEnvelope, WaitOutcome } from '../protocol/messages.js';
import { WAIT_MAX_MS } from '../protocol/param-schemas.js';
import { APPROVER_GROUP, type Role } from '../protocol/risk.js';
import { waitRounds } from '../client/wait-rounds.js';

/** The most `--wait SECONDS` takes: a day (a preview expires long before, 15 minutes by default). */
const MAX_WAIT_SECONDS = 86_400;

/**
 * `--wait [SECONDS]` as commander gives it: `true` (no number: until the preview's deadline),
 * or the text after it. Anything but a whole number of seconds is a usage error (exit 2).
 */
export function waitSeconds(raw: unknown, cmd: Command): number | undefined {
  if (raw === true || raw === undefined) return undefined;
  const n = typeof raw === 'string' && /^[0-9]{1,6}$/.test(raw) ? Number(raw) : NaN;
  if (!(n >= 1 && n <= MAX_WAIT_SECONDS)) cmd.error(`error: --wait takes a whole number of seconds from 1 to ${MAX_WAIT_SECONDS}, or nothing to wait until the preview expires (got ${JSON.stringify(String(raw))})`);
  return n;
}

type Approved = Extract<WaitOutcome, { outcome: 'approved' }>;

/**
 * Waits until a person approves `id` (then its receipt), or anything else ends it (then a
 * typed error). `seconds`: at most this long; absent, until the daemon says it expired.
 * `quiet` (--json): no progress line. `expiresAt`: the preview's deadline, for that line.
 */
export async function awaitApproval(cl: AirlockClient, id: string, o: { seconds?: number; quiet: boolean; expiresAt?: string }): Promise<Approved> {
  const started = Date.now();
  const end = o.seconds === undefined ? Infinity : started + o.seconds * 1000;
  const progress = !o.quiet && process.stderr.isTTY ? new Progress(id, started) : null;
  if (o.expiresAt) progress?.expiresAt(Date.parse(o.expiresAt));
  try {
    const w = await waitRounds(
      {
        round: (tx, timeout_ms) => cl.call('transaction.wait', { transaction_id: tx, timeout_ms }),
        progress: (_tx, _waited, pending) => progress?.expiresAt(Date.parse(pending.expires_at)),
        now: Date.now,
        sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
        aborted: () => false,
      },
      WAIT_MAX_MS,
      id,
      end,
    );
    if (w.outcome !== 'pending') return approvedOrThrow(w);
    throw new AirlockError('transient', 'wait_timeout', `nobody decided on ${id} within ${o.seconds} s; it still waits for a person, until ${w.expires_at}`, `wait again: \`airlock execute ${id} --wait\``);
  } finally {
    progress?.stop();
  }
}

/** An approval, or the error that says what happened instead. */
function approvedOrThrow(w: Exclude<WaitOutcome, { outcome: 'pending' }>): Approved {
  const id = w.transaction_id;
  switch (w.outcome) {
    case 'approved':
      return w;
    case 'denied':
      throw new AirlockError('authorization', 'denied', `${w.denied_by} denied ${id}${w.reason ? `: ${w.reason}` : ' (no reason given)'}`, 'nothing ran; preview again with what they asked for, or ask them');
    case 'expired':
      throw new AirlockError('stale_approval', 'preview_expired', `nobody approved ${id} before it expired`, 'preview again');
    case 'canceled':
      throw new AirlockError('stale_approval', 'not_pending', `${id} was canceled: nobody approved it`, 'preview again');
    case 'finished':
      throw new AirlockError('stale_approval', 'not_pending', `${id} is ${w.state}: its receipt was used already`, `see \`airlock show ${id}\``);
  }
}

/**
 * Who must approve a preview, and the exact command they run, for the requester to pass on:
 * the daemon's own decision about the caller (`your_approval`), the role its risk needs, and
 * whether the approver needs an authenticator code (High risk; Medium where the policy says).
 */
export async function whoApproves(cl: AirlockClient, p: PreviewEnvelope): Promise<string> {
  const [tx, policy] = await Promise.all([cl.transaction(p.transaction_id), cl.call('policy.show')]);
  const code = p.risk === 'high' || (p.risk === 'medium' && policy.second_factor_from === 'medium');
  const role = roleText(p.min_role);
  const lines = [
    `waiting for a person to approve ${p.transaction_id} (${escapeText(p.action_name)}, ${p.risk} risk): someone in ${APPROVER_GROUP} ${role}${code ? ', with their authenticator code,' : ''} runs, as themselves:`,
    `  airlock approve ${p.transaction_id}`,
    `  (or refuses it: airlock deny ${p.transaction_id} --reason "...")`,
  ];
  const count = tx.your_approval.approvals;
  if (count) lines.splice(1, 0, `  (${count.have} of ${count.needed} approvals: the policy has ${count.needed} different persons approve it)`);
  if (tx.your_approval.may_approve) lines.push(`you may approve it yourself, in a terminal of your own${tx.your_approval.second_factor ? ', with your authenticator code' : ''}`);
  return lines.join('\n') + '\n';
}

const roleText = (r: Role) => (r === 'admin' ? 'with the admin role' : r === 'dev' ? 'with the dev or admin role' : 'with any role');

/** The line at the terminal: time waited, time the preview has left; redrawn each second, erased at the end. */
class Progress {
  private deadline: number | null = null;
  private readonly timer: NodeJS.Timeout;
  constructor(
    private readonly id: string,
    private readonly started: number,
  ) {
    this.timer = setInterval(() => this.draw(), 1000);
    this.draw();
  }
  expiresAt(ms: number): void {
    this.deadline = ms;
  }
  private draw(): void {
    const now = Date.now();
    const left = this.deadline === null ? '' : `, the preview expires in ${clock(this.deadline - now)}`;
    process.stderr.write(`\r\x1b[K  waiting ${clock(now - this.started)} for ${this.id}${left} (Ctrl-C stops waiting; the request stays)`);
  }
  stop(): void {
    clearInterval(this.timer);
    process.stderr.write('\r\x1b[K');
  }
}

const clock = (ms: number) => {
  const s = Math.max(0, Math.round(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
};
