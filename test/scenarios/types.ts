/**
 * A scenario executes one catalogue action for real, through the daemon, in the
 * throwaway overlay host, then checks its effect from outside the daemon.
 * Scenarios of one family run in array order in the same sandbox, so a later one
 * may rely on an earlier one (CreateUser before AddAuthorizedKey).
 */
import type { JobState } from '../../src/protocol/risk.js';
import type { ResultEnvelope } from '../../src/protocol/messages.js';
import type { CommandResult } from '../../src/sandbox/overlay.js';

export interface SandboxView {
  /** Runs a program (absolute path) inside the sandbox, as root, outside the daemon. */
  run(program: string, args: string[]): Promise<CommandResult>;
  /** Reads a file as the sandbox sees it; null when absent. */
  readFile(path: string): Promise<string | null>;
  /** Writes a file (mode 0644) as the sandbox sees it, through its root from outside; for setups the catalogue cannot do. */
  writeFile?(path: string, content: string): Promise<void>;
}

/** Where a scenario file runs: `export const host = 'testbed'` in it for families that need a booted systemd. */
export type ScenarioHost = 'overlay' | 'testbed';

export interface Scenario {
  /** Optional label when an action has several scenarios. */
  title?: string;
  action: string;
  params: Record<string, unknown>;
  /** Prepares what the catalogue cannot (a file the test needs), directly inside the sandbox. */
  setup?: (box: SandboxView) => Promise<void>;
  /** Terminal state expected from execute (default Succeeded). */
  expect?: JobState;
  /**
   * Where the host cannot carry the action out at all (a kernel without loadable
   * modules), the typed error code its preview must refuse with; check then gets no
   * result and verifies that nothing changed.
   */
  refused?: string;
  /**
   * Waits until what the action started has finished (a job systemd runs after the action
   * returns), before the same request is repeated and the effect checked.
   */
  settle?: (box: SandboxView) => Promise<void>;
  /**
   * Why this scenario does not show the action's rollback and revert (issue 27): another of its
   * scenarios does, or the state it leaves is what a later one needs once. Absent: it shows them.
   */
  rollbackRounds?: { skip: string };
  /** Checks the real effect; use node:assert. Reads get the result to check its output. */
  check: (box: SandboxView, result: ResultEnvelope) => Promise<void>;
}
