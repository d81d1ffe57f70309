/**
 * The field types the wire's result schemas share (src/protocol/wire/*.ts). A result schema
 * states each field's type; where a field has a fixed form that a reader checks (a stored
 * preview's digests and times), the preview schema says so with the precise ones below.
 */
import { z } from 'zod';
import { JOB_STATES, RISKS, ROLES } from '../risk.js';

export const RiskSchema = z.enum(RISKS);
export const RoleSchema = z.enum(ROLES);
export const JobStateSchema = z.enum(JOB_STATES);
/** TxState (risk.ts): Previewed until a receipt is minted, then the job states. */
export const TxStateSchema = z.enum(['Previewed', ...JOB_STATES]);

/** A transaction id: tx_ and 24 hex digits (12 random bytes the daemon draws at preview). */
export const TRANSACTION_ID = /^tx_[0-9a-f]{24}$/;
export const transactionIdSchema = z.string().regex(TRANSACTION_ID, 'a transaction id: tx_ and 24 hex digits');
/** A hex SHA-256 (request hashes, digests, file contents). */
export const hex64 = z.string().regex(/^[0-9a-f]{64}$/);
/** An ISO 8601 time with its offset, as the daemon writes every time. */
export const isoTime = z.iso.datetime({ offset: true });
export const count = z.number().int().min(0);
