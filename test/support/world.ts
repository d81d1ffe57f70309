/**
 * A test world: a real daemon in a throwaway overlay host, and principals that are
 * real Unix users (created in the overlay) talking to it from their own processes,
 * so every role decision rests on the kernel's peer credentials.
 */
import { startSandboxDaemon, type SandboxDaemon } from '../../src/sandbox/daemon.js';
import { Principal } from '../../src/sandbox/principal.js';
import type { PreviewEnvelope, ApprovalGrant, ResultEnvelope } from '../../src/protocol/messages.js';

export interface World {
  d: SandboxDaemon;
  /** Creates (once) a user with these groups and a client process running as it. */
  as(name: string, groups: string[]): Promise<Principal>;
  /** preview by `agent`, approve by `approver`, execute by `agent`. */
  lifecycle(agent: Principal, approver: Principal, action: string, params: Record<string, unknown>): Promise<{ p: PreviewEnvelope; g: ApprovalGrant; r: ResultEnvelope }>;
  /** Stops the daemon; `keepSharedAs` keeps its store, keys and checkpoints there. */
  close(opts?: { keepSharedAs?: string }): Promise<void>;
}

/** A world on a throwaway overlay of this host (default) or on the booted Debian test bed. */
export async function startWorld(daemonArgs: string[] = [], host: 'overlay' | 'testbed' = 'overlay'): Promise<World> {
  const d = await startSandboxDaemon({ daemonArgs, host });
  const principals = new Map<string, Principal>();
  return {
    d,
    as: async (name, groups) => {
      let p = principals.get(name);
      if (!p) {
        p = Principal.spawn(await d.addUser(name, groups), d.socket);
        principals.set(name, p);
      }
      return p;
    },
    lifecycle: async (agent, approver, action, params) => {
      const p = await agent.call<PreviewEnvelope>('preview', { action_name: action, params });
      const g = await approver.call<ApprovalGrant>('approve', { transaction_id: p.transaction_id, preview_digest: p.preview_digest });
      const r = await agent.call<ResultEnvelope>('execute', { transaction_id: p.transaction_id, action_name: action, params: p.params, receipt: g.receipt });
      return { p, g, r };
    },
    close: async (opts) => {
      for (const p of principals.values()) p.close();
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
