/**
 * Verifying the signed log inside the MCP process: the daemon streams the stored rows
 * (audit.entries), and src/audit/verify.ts checks every signature, the chain and the
 * latest checkpoint here, with the public key. The key comes from the host's public key
 * file where this account can read it: a daemon cannot vouch for its own key (one that
 * rewrote its log could sign it with a key of its own and report that key). Only when the
 * file is unreadable is the daemon's audit.pubkey used, and the report says so.
 */
import { readFileSync } from 'node:fs';
import type { AirlockClient } from '../client/client.js';
import { keyIdOf, parsePublicKey } from '../audit/keys.js';
import { verifyLog, type LogRow, type VerifyReport } from '../audit/verify.js';
import { daemonEntries, daemonSource } from '../client/audit-source.js';
import { treeHeadLine } from '../audit/note.js';
import type { AuditSource } from '../audit/source.js';

/** Rows are held in memory to be verified: past this, verify a copy of the database with `airlock audit verify` instead. */
export const MAX_ENTRIES = 1_000_000;

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

/** The whole log as stored, page by page, in seq order (the one pager every client uses: daemonEntries). */
export async function readLog(cl: AirlockClient, max = MAX_ENTRIES, base?: number): Promise<LogRow[]> {
  const rows: LogRow[] = [];
  for await (const r of daemonEntries(cl, base)) {
    rows.push(r);
    if (rows.length > max) throw new Error(`the log has more than ${max} entries: verify a copy of the database with \`airlock audit verify\``);
  }
  return rows;
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

function readCheckpoints(path: string): { text: string | null; warning: string | null } {
  try {
    return { text: readFileSync(path, 'utf8'), warning: null };
  } catch (e) {
    return { text: null, warning: `the checkpoint file ${path} is not readable here (${(e as NodeJS.ErrnoException).code ?? 'error'}): a cut tail of the log cannot be detected` };
  }
}

export async function verifyThroughDaemon(cl: AirlockClient, files: AuditFiles): Promise<AuditReport> {
  return (await verifyAndKeep(cl, files)).report;
}

/** The report and the rows it verified (airlock_doctor reads the log once for two uses), or null when they could not be read. */
export async function verifyAndKeep(cl: AirlockClient, files: AuditFiles): Promise<{ report: AuditReport; rows: LogRow[] | null }> {
  const report = (r: AuditReport, rows: LogRow[] | null = null) => ({ report: r, rows });
  const none = { entries: 0, head_hash: null, first_broken: null, checkpoint: null };
  let key: KeyChoice;
  try {
    key = await chooseKey(cl, files.publicKeyPath);
  } catch (e) {
    return report({ ...none, status: 'cannot_verify', key: { source: 'none', path: null, key_id: null }, reason: `no public key to verify with: ${(e as Error).message}`, warnings: [] });
  }
  const keyOut = { source: key.source, path: key.path, key_id: key.key_id };
  const warnings: string[] = [];
  if (key.source === 'daemon') {
    warnings.push(`the public key came from the daemon itself (audit.pubkey), because ${key.why}: a daemon that rewrote its log could report a key of its own. Give this server a copy of the key you trust (\`airlock audit pubkey\` prints it) with \`airlock mcp-server --pubkey FILE\`.`);
  } else {
    const stated = await cl.call('audit.pubkey').then((k) => keyIdOf(parsePublicKey(k.public_key))).catch(() => null);
    if (stated !== null && stated !== key.key_id) warnings.push(`the daemon reports key ${stated}, but ${key.path} holds ${key.key_id}: verified with the file's key`);
  }
  // The checkpoints first, then the entries: every checkpoint read then covers at most the entries read after it.
  const checkpointsPath = files.checkpointsPath ?? (await cl.call('audit.pubkey').then((k) => k.checkpoint_file ?? null).catch(() => null));
  const cp = checkpointsPath === null
    ? { text: null, warning: 'the daemon did not say where it writes its checkpoints: a cut tail of the log cannot be detected (give --checkpoints FILE)' }
    : readCheckpoints(checkpointsPath);
  if (cp.warning) warnings.push(cp.warning);
  let rows: LogRow[];
  let started: Awaited<ReturnType<NonNullable<AuditSource['start']>>>;
  try {
    // Entries archived off the live store: the walk starts where the daemon's base says, which a signed head vouches for.
    started = await daemonSource(cl, 'the daemon').start!();
    rows = await readLog(cl, MAX_ENTRIES, started?.start.seq ?? 0);
  } catch (e) {
    return report({ ...none, status: 'cannot_verify', key: keyOut, reason: `the daemon did not give the log: ${(e as Error).message}`, warnings });
  }
  const evidence = [...(cp.text !== null && checkpointsPath !== null ? [{ from: checkpointsPath, text: cp.text }] : []), ...(started?.treeHead ? [{ from: 'the daemon (the tree head its live log starts from)', text: treeHeadLine(started.treeHead) + '\n' }] : [])];
  const r = await verifyLog(rows, key.raw, evidence.length > 0 ? evidence : null, { start: started?.start ?? null });
  return report({
    status: r.status,
    entries: r.entries,
    head_hash: r.head_hash,
    first_broken: r.first_broken ?? null,
    checkpoint: r.checkpoint,
    key: keyOut,
    reason: r.reason ?? null,
    // verify.ts says "pass --checkpoints FILE" when there was none; the readable-or-not warning above says more.
    warnings: [...warnings, ...r.warnings.filter((w) => !(cp.text === null && w.startsWith('no checkpoint file was given')))],
  }, rows);
}

/** One paragraph for the model and the person. */
export function auditText(r: AuditReport): string {
  const key = r.key.source === 'file' ? `the key in ${r.key.path} (${r.key.key_id})` : r.key.source === 'daemon' ? `the key the daemon reported (${r.key.key_id})` : 'no key';
  const head =
    r.status === 'intact'
      ? `intact: ${r.entries} entries verified with ${key}${r.checkpoint ? `, consistent with the checkpoint of ${r.checkpoint.ts} (size ${r.checkpoint.size})` : ''}`
      : r.status === 'broken'
        ? `BROKEN: ${r.first_broken?.seq !== null && r.first_broken?.seq !== undefined ? `first broken entry #${r.first_broken.seq}: ` : ''}${r.first_broken?.reason}; ${r.entries} entries verified before it, with ${key}`
        : `cannot verify: ${r.reason}`;
  return [head, ...r.warnings.map((w) => `warning: ${w}`)].join('\n');
}
