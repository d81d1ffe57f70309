/**
 * The audit methods, for any principal with a role: the public key, the signed log a page at
 * a time (audit-page.ts), the checkpoint file (checkpoint-page.ts), signed tree heads and the
 * proofs that tie entries and older heads to them (tree-heads.ts). The daemon adds nothing a
 * client must trust: each is checked by the client with the public key.
 */
import { fail } from '../../protocol/errors.js';
import type { AuditCheckpointsPage, AuditEntriesPage, AuditPublicKey, AuditTreeHead, ConsistencyProofDoc, InclusionProofDoc } from '../../protocol/messages.js';
import type { ParsedParams } from '../../protocol/methods.js';
import { auditPage } from '../audit-page.js';
import { checkpointPage } from '../checkpoint-page.js';
import type { AuditSources, Request, VerbContext } from './context.js';

/** What serves the audit methods (the daemon; a context built alone in a test has none). */
function sources(ctx: VerbContext): AuditSources {
  if (!ctx.audit) fail('integrity', 'internal', 'this daemon does not serve the audit methods');
  return ctx.audit!;
}

export async function publicKey(ctx: VerbContext): Promise<AuditPublicKey> {
  return sources(ctx).publicKey();
}

export function entries(ctx: VerbContext, r: Request<ParsedParams<'audit.entries'>>): Promise<AuditEntriesPage> {
  return auditPage(ctx.store, r.params);
}

export function checkpoints(ctx: VerbContext, r: Request<ParsedParams<'audit.checkpoints'>>): Promise<AuditCheckpointsPage> {
  return checkpointPage(sources(ctx).checkpointPath, r.params);
}

export function treeHead(ctx: VerbContext, r: Request<ParsedParams<'audit.tree_head'>>): Promise<AuditTreeHead> {
  return sources(ctx).treeHeads.head(r.params);
}

export function prove(ctx: VerbContext, r: Request<ParsedParams<'audit.prove'>>): Promise<InclusionProofDoc> {
  return sources(ctx).treeHeads.prove(r.params);
}

export function consistency(ctx: VerbContext, r: Request<ParsedParams<'audit.consistency'>>): Promise<ConsistencyProofDoc> {
  return sources(ctx).treeHeads.consistency(r.params);
}
