/**
 * What the tools share in one server process: where the daemon is and where the audit files
 * are. No receipt is kept here: the daemon holds every receipt for its requester (a person's
 * approval's and the policy's), and airlock_execute asks it for them.
 */
import type { DaemonTarget } from './daemon.js';
import type { Planner } from '../planner/contract.js';

export interface ToolDeps {
  target: DaemonTarget;
  /** The host's copy of the audit public key (readable or not), and its checkpoint file. */
  audit: { publicKeyPath: string; checkpointsPath: string | null };
  /** The planner airlock_plan uses; absent: the configured one (src/planner/choose.ts), chosen per call. */
  planner?: () => Planner;
}

/** The four behaviour hints, stated for every tool (openWorldHint false: each reaches this host's daemon, or a host of the relay's list a person made, nothing else). */
export const hints = (h: { readOnly: boolean; destructive: boolean; idempotent: boolean }) => ({
  readOnlyHint: h.readOnly,
  destructiveHint: h.destructive,
  idempotentHint: h.idempotent,
  openWorldHint: false,
});
