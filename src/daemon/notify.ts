/**
 * Tells people that something waits for them: a preview pending approval, or an
 * unattended principal's proposal; and that root reset somebody's second factor. Through the policy's command (an argv, run without
 * a shell, the event as JSON on stdin) and/or webhook (a JSON POST). The event names
 * the action, risk, summary and requester, never parameters. Fire and forget: a slow
 * or failing notifier never delays or fails the preview; failures go to the daemon's log.
 */
import { spawn } from 'node:child_process';
import type { Risk } from '../protocol/risk.js';
import type { Policy } from '../policy/policy.js';

export interface PendingEvent {
  event: 'pending_approval' | 'proposal';
  transaction_id: string;
  action: string;
  risk: Risk;
  summary: string;
  requested_by: string;
  expires_at: string;
}

/** Root deleted a person's second factor: the person (and whoever watches) should know. */
export interface FactorResetEvent {
  event: 'totp_reset';
  approver: string;
  by: string;
  at: string;
}

export type NotifyEvent = PendingEvent | FactorResetEvent;

const TIMEOUT_MS = 10_000;

export function notifier(log: (m: string) => void): (policy: Policy, e: NotifyEvent) => void {
  return (policy, e) => {
    const { command, webhook } = policy.notify;
    if (!command && !webhook) return; // every preview passes here: nothing to do unless the policy names a notifier
    const body = JSON.stringify(e) + '\n';
    if (command) {
      const child = spawn(command[0]!, command.slice(1), { stdio: ['pipe', 'ignore', 'ignore'], timeout: TIMEOUT_MS, env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', LANG: 'C.UTF-8' } });
      child.on('error', (err) => log(`notify command ${command[0]} failed: ${err.message}`));
      child.on('exit', (code) => code !== 0 && code !== null && log(`notify command ${command[0]} exited with status ${code}`));
      child.stdin!.on('error', () => {});
      child.stdin!.end(body);
    }
    if (webhook) {
      fetch(webhook, { method: 'POST', headers: { 'content-type': 'application/json' }, body, signal: AbortSignal.timeout(TIMEOUT_MS) })
        .then((r) => !r.ok && log(`notify webhook answered ${r.status}`))
        .catch((err: Error) => log(`notify webhook failed: ${err.message}`));
    }
  };
}
