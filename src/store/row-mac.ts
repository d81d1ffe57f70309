/**
 * The rows a daemon decides on (a transaction's state and consumed receipt, an approver's
 * factor, a rule's uses) carry an HMAC-SHA256 under a key only this host holds (row.key, root-only, never in
 * the database). Whoever else can write the database (another host's role, a DBA, a superuser
 * bypassing row-level security) can delete such a row but not make or edit one this daemon
 * will act on: every read is checked, and a row without this host's MAC is refused
 * (integrity/row_mac), so nothing is approved or executed on it.
 *
 * The MAC covers the log id, the table and every column the store reads, in a fixed order,
 * as the database returned them: a row moved to another log or table does not verify either.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { DOMAIN_ROW_MAC, frameFields } from '../audit/domains.js';
import { AirlockError } from '../protocol/errors.js';

export const MAC_COLUMNS = {
  transactions: ['id', 'action_name', 'params_json', 'request_hash', 'risk', 'state', 'requester_uid', 'requester_name', 'requester_role', 'requester_person_uid',
    'preview_json', 'preview_digest', 'summary', 'created_at', 'updated_at', 'expires_at', 'approved_by', 'receipt_commitment', 'consumed_at', 'result_json', 'compacted_at'],
  totp: ['approver', 'secret', 'enrolled_at', 'last_step', 'failures', 'locked_until'],
  /** A pending secret: once proven by its first code, another approver's approval makes it a factor. */
  totp_pending: ['approver', 'secret', 'issued_at', 'expires_at', 'failures', 'confirmed_step'],
  /** A person's passkey: whoever else writes the database cannot plant one that approves here. */
  passkeys: ['credential_id', 'approver', 'public_key', 'counter', 'transports', 'name', 'created_at', 'last_used_at'],
  /** One person's approval of a transaction that waits for another ([approval] high = 2): inserted once, never changed; one planted would count as a person. */
  co_approvals: ['tx_id', 'approver', 'principal', 'preview_digest', 'at'],
  /** A rule's approvals, counted for its cooldown and daily cap: inserted once, never changed. */
  rule_use: ['rule_id', 'at'],
} as const;
export type MacTable = keyof typeof MAC_COLUMNS;
/** What the row is called in an error: its key column. */
const KEY_COLUMN: Record<MacTable, string> = { transactions: 'id', totp: 'approver', totp_pending: 'approver', passkeys: 'credential_id', co_approvals: 'tx_id', rule_use: 'rule_id' };

export class RowMac {
  constructor(
    private readonly key: Buffer,
    private readonly logId: string,
  ) {
    if (key.length !== 32) throw new AirlockError('integrity', 'bad_key', 'the row MAC key is exactly 32 bytes');
  }

  /** Hex MAC of a row as the database returned it (numbers, strings, nulls). */
  of(table: MacTable, row: Record<string, unknown>): string {
    // JSON keeps a number apart from its decimal string, and null apart from "null".
    const fields = [this.logId, table, ...MAC_COLUMNS[table].map((c) => JSON.stringify(row[c] ?? null))];
    return createHmac('sha256', this.key).update(DOMAIN_ROW_MAC).update(frameFields(fields)).digest('hex');
  }

  /** The row when its `mac` column is this host's MAC of it; otherwise integrity/row_mac, failing closed. */
  check<R extends Record<string, unknown>>(table: MacTable, row: R): R {
    const want = Buffer.from(this.of(table, row), 'hex');
    const got = typeof row.mac === 'string' && /^[0-9a-f]{64}$/.test(row.mac) ? Buffer.from(row.mac, 'hex') : Buffer.alloc(32);
    if (!timingSafeEqual(want, got)) {
      const name = String(row[KEY_COLUMN[table]] ?? '?').slice(0, 80);
      throw new AirlockError(
        'integrity',
        'row_mac',
        `the ${table} row ${JSON.stringify(name)} of log ${this.logId} does not carry this host's MAC: it was written or changed outside this daemon, so nothing is decided on it`,
        'compare the row with the signed log (`airlock audit verify` names a broken lifecycle rule); restore the row from a backup, or have the DBA delete it (its entries stay in the log; a deleted factor is enrolled again)',
      );
    }
    return row;
  }
}
