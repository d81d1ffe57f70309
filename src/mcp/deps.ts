/** What the tools share in one server process: where the daemon is, the receipts it handed us, where the audit files are. */
import type { DaemonTarget } from './daemon.js';
import type { HeldReceipts } from './held-receipts.js';
import type { Planner } from '../planner/contract.js';

export interface ToolDeps {
  target: DaemonTarget;
  held: HeldReceipts;
  /** The host's copy of the audit public key (readable or not), and its checkpoint file. */
  audit: { publicKeyPath: string; checkpointsPath: string | null };
  /** The planner airlock_plan uses; absent: the configured one (src/planner/choose.ts), chosen per call. */
  planner?: () => Planner;
}

/** The four behaviour hints, stated for every tool (openWorldHint false: each reaches only the local daemon). */
export const hints = (h: { readOnly: boolean; destructive: boolean; idempotent: boolean }) => ({
  readOnlyHint: h.readOnly,
  destructiveHint: h.destructive,
  idempotentHint: h.idempotent,
  openWorldHint: false,
});
