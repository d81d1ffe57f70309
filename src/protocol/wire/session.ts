/**
 * The "this session" lane on the wire (src/daemon/session-grants.ts): how long a person may let
 * identical requests through, the grants in force (`session.list`) and a revocation
 * (`session.revoke`).
 */
import { z } from 'zod';
import { count, isoTime, RiskSchema, transactionIdSchema } from './fields.js';

/** The longest session a person can grant, in minutes (a working day). */
export const MAX_SESSION_MINUTES = 480;
export const SESSION_GRANT_ID = /^sg_[0-9a-f]{24}$/;

/** What an approval that granted a session returns beside its receipt. */
export const SessionGrantRefSchema = z.strictObject({ grant_id: z.string().regex(SESSION_GRANT_ID), until: isoTime });

/** One grant in force: who let whose requests through, which request, until when, used how often. */
export const SessionGrantViewSchema = z.strictObject({
  grant_id: z.string().regex(SESSION_GRANT_ID),
  approver: z.string(),
  requester: z.string(),
  action_name: z.string(),
  /** The request's parameters as its preview showed them (masked, escaped). */
  params: z.record(z.string(), z.unknown()),
  request_hash: z.string(),
  risk: RiskSchema,
  first_transaction: transactionIdSchema,
  granted_at: isoTime,
  until: isoTime,
  uses: count,
});
export type SessionGrantView = z.infer<typeof SessionGrantViewSchema>;

/** `session.list`: the grants in force, oldest first. */
export const SessionGrantListSchema = z.strictObject({ grants: z.array(SessionGrantViewSchema) });

/** `session.revoke`: the grant ended; identical requests wait for a person again. */
export const SessionRevokedSchema = z.strictObject({ grant_id: z.string(), revoked_at: isoTime, uses: count });
