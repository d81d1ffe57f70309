/**
 * Plays the approvers' authenticator apps for the demo and the tests: holds each
 * enrolled secret and hands out codes the daemon has not yet seen spent. The daemon
 * accepts a step once per approver (now or the next one, by its clock), so a
 * burst of High approvals by one person needs a code from a later step or another person.
 */
import { codeAt, STEP_SECONDS } from '../protocol/totp.js';

const STEP_MS = STEP_SECONDS * 1000;
/** Codes this close to the end of their step may have expired by the time the daemon checks. */
const EDGE_MS = 2_000;

export class Authenticator {
  private readonly secrets = new Map<string, { secret: string; lastStep: number }>();

  add(user: string, secret: string): void {
    this.secrets.set(user, { secret, lastStep: 0 });
  }

  has(user: string): boolean {
    return this.secrets.has(user);
  }

  /** A code for a step this user has not spent (the current one or the next), or null when both are spent. */
  freshCode(user: string, now = Date.now()): string | null {
    const s = this.secrets.get(user);
    if (!s) throw new Error(`no authenticator for ${user}`);
    const step = this.unspent(s.lastStep, now)[0];
    if (step === undefined) return null;
    s.lastStep = step;
    return codeAt(s.secret, step * STEP_MS);
  }

  /** How many codes freshCode would still hand out for this user right now (0, 1 or 2). */
  codesLeft(user: string, now = Date.now()): number {
    const s = this.secrets.get(user);
    return s ? this.unspent(s.lastStep, now).length : 0;
  }

  /** The steps the daemon would accept now (the current one, or the next near the edge, and the next) after `lastStep`. */
  private unspent(lastStep: number, now: number): number[] {
    const current = Math.floor(now / STEP_MS);
    const first = now % STEP_MS > STEP_MS - EDGE_MS ? current + 1 : current;
    return [...new Set([first, current + 1])].filter((step) => step > lastStep);
  }

  /** A fresh code, waiting for the next step when this user has spent the ones available now. */
  async code(user: string): Promise<string> {
    for (;;) {
      const c = this.freshCode(user);
      if (c) return c;
      await new Promise((r) => setTimeout(r, STEP_MS - (Date.now() % STEP_MS) + 50));
    }
  }
}
