/**
 * The signed log verified in this client's process, read through the daemon: for
 * airlock_audit_verify, airlock_doctor and `airlock doctor`. It is the one verifier every
 * source goes through (src/audit/source.ts verifySource, as `airlock audit verify` uses it)
 * over the daemon as a source (src/client/audit-source.ts daemonSource); what this adds is
 * which key and which checkpoint file, and a report in the shape an agent's tool promises.
 *
 * The key comes from the host's public key file where this account can read it: a daemon
 * cannot vouch for its own key (one that rewrote its log could sign it with a key of its own
 * and report that key). Only when the file is unreadable is the daemon's audit.pubkey used,
 * and the report says so. The checkpoint file is the one given, else the one the daemon says
 * it writes, read here by this process; it is required: a missing or unreadable one leaves a
 * cut tail undetectable, which is cannot_verify, never intact.
 */
import { readFileSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import type { AirlockClient } from './client.js';
import { keyIdOf, parsePublicKey } from '../audit/keys.js';
import type { LogRow, VerifyReport } from '../audit/verify.js';
import { verifySource, type AuditSource, type CheckpointFile } from '../audit/source.js';
import { daemonSource } from './audit-source.js';
import { AirlockError } from '../protocol/errors.js';

/** How verifySource refuses a checkpoint file it cannot read (src/audit/source.ts). */
const CHECKPOINT_FILE_ERRORS = new Set(['permission_denied', 'no_checkpoint_file']);

/** Rows kept for a caller that reads the log too (the doctor's second factors): past this many, it is told they were not all kept. */
export const MAX_KEPT_ROWS = 1_000_000;

export interface AuditFiles {
  publicKeyPath: string;
  /** null: the checkpoint file the daemon itself writes (audit.pubkey's checkpoint_file), not a default path. */
  checkpointsPath: string | null;
}

export interface KeyChoice {
  source: 'file' | 'daemon';
  path: string | null;
  raw: Buffer;
  key_id: string;
  /** Why the file was not used, when it was not. */
  why: string | null;
}

export interface AuditReport {
  status: 'intact' | 'broken' | 'cannot_verify';
  entries: number;
  head_hash: string | null;
  first_broken: { seq: number | null; reason: string } | null;
  checkpoint: VerifyReport['checkpoint'];
  key: { source: 'file' | 'daemon' | 'none'; path: string | null; key_id: string | null };
  reason: string | null;
  warnings: string[];
}

/** The host's key file when this account can read it, else the daemon's own statement of its key. */
export async function chooseKey(cl: AirlockClient, path: string): Promise<KeyChoice> {
  let text: string | null = null;
  let why: string | null = null;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    why = `${path} is not readable by this account (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`;
  }
  if (text !== null) {
    const raw = parsePublicKey(text); // a key file that holds no key is a finding, not a reason to trust the daemon
    return { source: 'file', path, raw, key_id: keyIdOf(raw), why: null };
  }
  const raw = parsePublicKey((await cl.call('audit.pubkey')).public_key);
  return { source: 'daemon', path: null, raw, key_id: keyIdOf(raw), why };
}

/** The daemon as a source, with every row it yields handed to `keep` as well (verifySource walks them once, and holds none). */
function tapped(src: AuditSource, keep: (row: LogRow) => void): AuditSource {
  return {
    ...src,
    entries: async function* () {
      for await (const row of src.entries()) {
        keep(row);
        yield row;
      }
    },
  };
}

export async function verifyThroughDaemon(cl: AirlockClient, files: AuditFiles): Promise<AuditReport> {
  return (await verifyAndKeep(cl, files)).report;
}

/** The report and the rows it verified (the doctors read the log once for two uses); rows null when there were too many to keep. */
export async function verifyAndKeep(cl: AirlockClient, files: AuditFiles): Promise<{ report: AuditReport; rows: LogRow[] | null }> {
  const none = { entries: 0, head_hash: null, first_broken: null, checkpoint: null };
  let key: KeyChoice;
  try {
    key = await chooseKey(cl, files.publicKeyPath);
  } catch (e) {
    return { report: { ...none, status: 'cannot_verify', key: { source: 'none', path: null, key_id: null }, reason: `no public key to verify with: ${(e as Error).message}`, warnings: [] }, rows: null };
  }
  const keyOut = { source: key.source, path: key.path, key_id: key.key_id };
  const warnings: string[] = [];
  if (key.source === 'daemon') {
    warnings.push(`the public key came from the daemon itself (audit.pubkey), because ${key.why}: a daemon that rewrote its log could report a key of its own. Give this server a copy of the key you trust (\`airlock audit pubkey\` prints it) with \`airlock mcp-server --pubkey FILE\`.`);
  } else {
    const stated = await cl.call('audit.pubkey').then((k) => keyIdOf(parsePublicKey(k.public_key))).catch(() => null);
    if (stated !== null && stated !== key.key_id) warnings.push(`the daemon reports key ${stated}, but ${key.path} holds ${key.key_id}: verified with the file's key`);
  }
  // The host's record is the file given, else the one this daemon says it writes (its --log-dir), not a default path.
  const own = files.checkpointsPath ?? (await cl.call('audit.pubkey').then((k) => k.checkpoint_file ?? null).catch(() => null));
  // Neither: verifySource's warnings say the daemon's own checkpoints were all there was.
  const checkpointFiles: CheckpointFile[] = own !== null && isAbsolute(own) ? [{ path: own, named: files.checkpointsPath !== null, required: true }] : [];
  let rows: LogRow[] | null = [];
  const keep = (row: LogRow) => {
    if (rows !== null && rows.length >= MAX_KEPT_ROWS) rows = null;
    rows?.push(row);
  };
  try {
    const r = await verifySource(tapped(daemonSource(cl, 'the daemon'), keep), key.raw, { checkpointFiles });
    const report: AuditReport = {
      status: r.status,
      entries: r.entries,
      head_hash: r.head_hash,
      first_broken: r.first_broken ? { seq: r.first_broken.seq, reason: r.first_broken.reason } : null,
      checkpoint: r.checkpoint,
      key: keyOut,
      reason: r.reason ?? null,
      warnings: [...warnings, ...r.warnings],
    };
    return { report, rows };
  } catch (e) {
    // The checkpoint file could not be read, or the daemon would not give the log: nothing says the log is whole.
    const what = e instanceof AirlockError && CHECKPOINT_FILE_ERRORS.has(e.code) ? 'the checkpoint file could not be read' : 'the daemon did not give the log';
    return { report: { ...none, status: 'cannot_verify', key: keyOut, reason: `${what}: ${(e as Error).message}`, warnings }, rows: null };
  }
}
