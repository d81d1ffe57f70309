/**
 * The bodies of `airlock audit verify`, `audit pubkey` and `audit export` (audit.ts declares
 * them). verify reads the log from one source (a database, a bundle, or the daemon, which any
 * role may ask) and checks it with one verifier (src/audit/source.ts verifySource); the public
 * key is always the auditor's own file, never the source's word.
 */
import type { Command } from 'commander';
import { existsSync, readFileSync } from 'node:fs';
import { writeFileSafely } from '../protocol/safe-write.js';
import { dirname, isAbsolute, join } from 'node:path';
import { formatPublicKey, keyIdOf, parsePublicKey, parsePublicKeys } from '../audit/keys.js';
import { databaseSource } from '../audit/log-file.js';
import { isPostgresUrl } from '../audit/pg-url.js';
import { bundleSource, writeBundle } from '../audit/bundle.js';
import { verifySource, type AuditSource, type CheckpointFile, type SourceReport } from '../audit/source.js';
import { archiveSource, listSegments, tilingGap } from '../audit/archive-source.js';
import { daemonSource } from '../client/audit-source.js';
import { socketPath } from '../client/client.js';
import { AirlockError } from '../protocol/errors.js';
import { AUDIT_KEY_HISTORY_FILE, DEFAULT_LOG_DIR, DEFAULT_STATE_DIR, stateFiles } from '../protocol/defaults.js';
import { escapeText } from '../protocol/escape-text.js';
import { readKeyFile } from './audit-keys.js';
import { verifyProofFile } from './audit-proof.js';
import { formatVkey, parseVkey, SIG_COSIGNATURE_V1 } from '../audit/note.js';
import { withClient } from './connect.js';
import { c, printJson, reportError } from './ui.js';

interface VerifyOpts {
  pubkey: string;
  db?: string;
  bundle?: string;
  archive?: string;
  checkpoints: string;
  origin?: string;
  allHosts?: boolean;
  witness: string[];
  proof?: string;
  json?: boolean;
}

/** Exit status: 0 intact, 1 broken, 2 cannot verify (any error: an unreadable key, database, bundle or daemon). */
export async function verify(o: VerifyOpts, cmd: Command): Promise<number> {
  // A PostgreSQL store holds a log per host: audit-hosts.ts verifies each with its own key.
  if (o.db !== undefined && o.bundle === undefined && isPostgresUrl(o.db)) return (await import('./audit-hosts.js')).verifyHosts({ ...o, db: o.db }, cmd, { keyFile: readKeyFile, witnessKey: readWitnessKey });
  const started = process.hrtime.bigint();
  let report;
  try {
    if (o.proof !== undefined) {
      if (o.db !== undefined || o.bundle !== undefined) throw new AirlockError('validation', 'bad_source', 'a proof file is checked on its own: give --proof without --db or --bundle');
      return verifyProofFile(o.proof, { pubkey: o.pubkey, ...(o.origin !== undefined ? { origin: o.origin } : {}), ...(o.json ? { json: true } : {}) });
    }
    if (o.db !== undefined && o.bundle !== undefined) throw new AirlockError('validation', 'bad_source', 'give --db or --bundle, not both');
    if (o.allHosts) throw new AirlockError('validation', 'bad_source', '--all-hosts reads a PostgreSQL store: give --db postgres://...');
    const pub = parsePublicKeys(readKeyFile(o.pubkey));
    const witnesses = o.witness.map(readWitnessKey);
    const named = cmd.getOptionValueSource('checkpoints') !== 'default';
    // Read on the host (the daemon, a database), the host's checkpoint file must be there; a bundle carries its own.
    const checkpointFiles: CheckpointFile[] = [{ path: o.checkpoints, named, required: o.bundle === undefined || named }];
    const opts = { checkpointFiles, witnesses, ...(o.origin !== undefined ? { origin: o.origin } : {}) };
    if (o.archive !== undefined && o.bundle !== undefined) throw new AirlockError('validation', 'bad_source', '--archive walks the archive and the live log (the daemon, or --db): give a segment alone with --bundle, without --archive');
    // With --archive, the live source is walked after the archive's segments, from entry 1.
    const run = (src: AuditSource, files = checkpointFiles) => {
      const withFiles = { ...opts, checkpointFiles: files };
      return o.archive !== undefined ? verifyWithArchive(o.archive, src, pub, withFiles) : verifySource(src, pub, withFiles);
    };
    if (o.db !== undefined) report = await run(databaseSource(o.db, `airlock audit verify --pubkey ${o.pubkey}`));
    else if (o.bundle !== undefined) report = await verifySource(bundleSource(o.bundle), pub, opts);
    else {
      report = await withClient(cmd, async (cl) => {
        // The host's record is the file this daemon writes (its --log-dir), not the default path: read here, by this process.
        const own = named ? undefined : (await cl.call('audit.pubkey')).checkpoint_file;
        return run(daemonSource(cl, socketPath(cmd.optsWithGlobals().socket)), own && isAbsolute(own) ? [{ path: own, named: false, required: true }] : checkpointFiles);
      });
    }
  } catch (e) {
    // Without the daemon there are still the other sources.
    const unreachable = e instanceof AirlockError && e.code === 'daemon_unreachable';
    reportError(unreachable ? new AirlockError(e.category, e.code, e.message, `${e.hint ?? 'start the daemon'}; or verify without it: --db ${DEFAULT_STATE_DIR}/airlock.db (as root, or a copy with its -wal file) or --bundle FILE (from \`airlock audit export\`)`) : e, Boolean(o.json));
    return 2;
  }
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (o.json) printJson({ ...report, elapsed_ms: Math.round(ms) });
  else {
    const from = escapeText(report.source);
    if (report.status === 'intact') {
      const cp = report.checkpoint;
      process.stdout.write(`${c.green('intact')}  ${report.entries} entries from ${from}, head ${report.head_hash.slice(0, 16)}…${cp ? `, consistent with the checkpoint of ${cp.ts} (size ${cp.size}, ${cp.origin})` : ''} ${c.dim(`(${ms.toFixed(0)} ms)`)}\n`);
    } else if (report.status === 'cannot_verify') {
      process.stdout.write(`${c.yellow('CANNOT VERIFY')}  ${escapeText(report.reason ?? 'the evidence is incomplete')}\n  ${report.entries} entries of ${from} verified, and nothing contradicts them; but this is not proof the log is whole\n`);
    } else {
      const fb = report.first_broken!;
      process.stdout.write(`${c.red('BROKEN')}  ${fb.seq !== null ? `first broken entry: #${fb.seq}: ` : ''}${escapeText(fb.reason)}\n  ${report.entries} entries of ${from} verified before it\n`);
    }
    const spans = signedBy(report.keys);
    if (spans) process.stdout.write(`  signed by: ${spans}\n`);
    for (const w of report.warnings) process.stdout.write(`${c.yellow('warning')} ${escapeText(w)}\n`);
  }
  return report.status === 'intact' ? 0 : report.status === 'broken' ? 1 : 2;
}

/**
 * The archive's segments, then the live source, as one log (audit/archive-source.ts): segments
 * that do not tile the history up to where the live log starts are cannot_verify, said before any walk.
 */
async function verifyWithArchive(dir: string, live: AuditSource, pub: Buffer[], opts: Parameters<typeof verifySource>[2]): Promise<SourceReport> {
  const started = (await live.start?.()) ?? null;
  const liveBase = started?.start.seq ?? 0;
  const segments = listSegments(dir, started?.start.logId ?? keyIdOf(pub[0]!));
  const gap = tilingGap(segments, liveBase);
  if (gap) {
    return { status: 'cannot_verify', entries: 0, head_hash: '', root: '', checkpoint: null, witnessed: null, keys: [], warnings: [], source: `the archive ${dir} and ${live.name}`, reason: `${gap}: the history before entry ${liveBase + 1} cannot be checked (find the missing segment files; the log's \`archived\` entries name each one)` };
  }
  const { start: _ignored, ...withoutStart } = live;
  return verifySource(archiveSource(dir, segments, withoutStart, liveBase), pub, opts);
}

/** "KEYID entries 1-699, KEYID2 entries 700-812" (a key a rotation at the end made current: "from entry N"). */
export function signedBy(keys: readonly { key_id: string; first_seq: number; last_seq: number }[]): string {
  return keys.map((k) => (k.last_seq < k.first_seq ? `${k.key_id} from entry ${k.first_seq} (none yet)` : `${k.key_id} entries ${k.first_seq}-${k.last_seq}`)).join(', ');
}

/**
 * `airlock audit pubkey --vkey`: the log's verifier key, "<origin>+<key hash>+<key>" (C2SP signed-note),
 * what a witness's config names the log by. It is the daemon's word, like the key itself: compare
 * its key with the one the host's administrator gives you before a witness trusts it.
 */
async function printVkey(o: { json?: boolean }, cmd: Command): Promise<number> {
  const r = await withClient(cmd, (cl) => cl.call('audit.pubkey'));
  if (r.origin === undefined) throw new AirlockError('validation', 'no_origin', 'this daemon does not say its origin (a version before tree heads)', 'upgrade the daemon, or read the origin from its start-up line in the journal');
  const raw = parsePublicKey(r.public_key);
  const vkey = formatVkey(r.origin, raw);
  if (o.json) printJson({ vkey, origin: r.origin, key_id: keyIdOf(raw) });
  else process.stdout.write(`${vkey}\n`);
  return 0;
}

/** A witness's verifier key, given as the vkey itself or a file holding it. */
function readWitnessKey(text: string): { name: string; publicRaw: Buffer } {
  const vkey = existsSync(text) ? readFileSync(text, 'utf8').trim() : text;
  return parseVkey(vkey, [SIG_COSIGNATURE_V1]);
}

/**
 * `airlock audit pubkey [--out FILE] [--history]`: the audit public key from the daemon (or a
 * state directory), printed, or written to FILE with its key id. With --history, every key the
 * log has had, oldest first ("ed25519:<hex>  <key id>  from seq N" lines), which `audit verify
 * --pubkey` reads as well. An existing FILE holding another key is refused without --force:
 * replacing the key an auditor trusts must be deliberate (a history that keeps every key the file
 * held only extends it, and is written).
 */
export async function pubkey(o: { out?: string; force?: boolean; stateDir?: string; history?: boolean; vkey?: boolean; json?: boolean }, cmd: Command): Promise<number> {
  if (o.vkey) return printVkey(o, cmd);
  const from = o.stateDir ? `${o.stateDir}/${o.history ? AUDIT_KEY_HISTORY_FILE : 'audit.pub'}` : 'the daemon';
  let text: string;
  if (o.stateDir) text = readFileSync(o.history ? stateFiles(o.stateDir, DEFAULT_LOG_DIR).auditKeyHistory : stateFiles(o.stateDir, DEFAULT_LOG_DIR).publicKey, 'utf8');
  else {
    const r = await withClient(cmd, (cl) => cl.call('audit.pubkey'));
    if (o.history && r.key_history === undefined) throw new AirlockError('validation', 'no_key_history', 'this daemon keeps no key history (a version before key rotation): its one key is the whole history', 'write it with `airlock audit pubkey --out FILE`');
    text = o.history ? r.key_history! : r.public_key;
  }
  const keys = o.history ? parsePublicKeys(text) : [parsePublicKey(text)];
  const raw = keys.at(-1)!;
  const keyId = keyIdOf(raw);
  // A history's lines as the daemon wrote them (key, id, first seq), each checked to be a key.
  const content = o.history ? text.split('\n').filter((l) => l.trim() !== '').map((l) => `${l.trim()}\n`).join('') : formatPublicKey(raw);
  const ids = keys.map((k) => keyIdOf(k));
  if (o.out === undefined) {
    if (o.json) printJson({ public_key: formatPublicKey(raw).trim(), key_id: keyId, from, ...(o.history ? { keys: ids } : {}) });
    else process.stdout.write(content);
    return 0;
  }
  let held: Buffer[] | null = null;
  try {
    held = parsePublicKeys(readFileSync(o.out, 'utf8'));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT' && !o.force) {
      throw new AirlockError('conflict', 'key_file_differs', `${o.out} exists and does not hold a public key this command can read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, 'choose another file, or add --force to replace it');
    }
  }
  const same = held !== null && readFileSync(o.out, 'utf8') === content;
  const kept = held === null || held.every((h) => keys.some((k) => k.equals(h)));
  if (!kept && !o.force) {
    const other = held!.find((h) => !keys.some((k) => k.equals(h)))!;
    throw new AirlockError('conflict', 'key_file_differs', `${o.out} holds another key (key id ${keyIdOf(other)}), not ${o.history ? `one of this log's ${ids.join(', ')}` : `this log's ${keyId}`}`, "if the log's key really changed, find out why before you trust the new one; then add --force to replace the file");
  }
  if (!same) writeFileSafely(o.out, content, { mode: 0o644 });
  if (o.json) printJson({ path: o.out, public_key: formatPublicKey(raw).trim(), key_id: keyId, from, written: !same, ...(o.history ? { keys: ids } : {}) });
  else {
    const what = o.history ? `the audit key history (${ids.length} key${ids.length === 1 ? '' : 's'}: ${ids.join(', ')})` : `the audit public key of key id ${keyId}`;
    process.stdout.write(`${same ? `${escapeText(o.out)} already holds` : `wrote ${escapeText(o.out)}:`} ${what} (from ${escapeText(from)})\n`);
    if (!o.stateDir) process.stdout.write(`  this is the daemon's word: compare the key id${o.history ? ' of the first key' : ''} with the one the host's administrator gives you, then verify with\n  airlock audit verify --pubkey ${escapeText(o.out)}\n`);
  }
  return 0;
}

/**
 * `airlock audit export --out FILE`: the signed log and its checkpoints in one bundle file
 * (src/audit/bundle.ts), from the daemon (any role), or with --db from a database this account
 * can read and the checkpoint file.
 */
export async function exportLog(o: { out: string; db?: string; checkpoints: string; force?: boolean; json?: boolean }, cmd: Command): Promise<void> {
  const write = async (src: AuditSource, publicKey: string | null) => {
    const n = await writeBundle(src, o.out, { publicKey, publicKeys: publicKey ? parsePublicKeys(publicKey) : [], force: Boolean(o.force) });
    if (o.json) return printJson({ path: o.out, source: src.name, ...n });
    process.stdout.write(`wrote ${escapeText(o.out)}: ${n.entries} entries, ${n.tree_heads} signed tree heads${n.checkpoints ? ` and ${n.checkpoints} older checkpoints` : ''} from ${escapeText(src.name)}\n`);
    process.stdout.write(`  verify it anywhere, with no daemon: airlock audit verify --bundle ${escapeText(o.out)} --pubkey audit.pub\n`);
  };
  if (o.db === undefined) {
    return withClient(cmd, async (cl) => write(daemonSource(cl, socketPath(cmd.optsWithGlobals().socket)), (await cl.call('audit.pubkey')).public_key));
  }
  const db = databaseSource(o.db, 'airlock audit export --out FILE');
  const explicit = cmd.getOptionValueSource('checkpoints') !== 'default';
  const checkpoints = async () => {
    try {
      return [{ from: o.checkpoints, text: readFileSync(o.checkpoints, 'utf8') }];
    } catch (e) {
      if (!explicit && (e as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw new AirlockError('validation', 'no_checkpoint_file', `cannot read the checkpoint file ${o.checkpoints}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
  };
  let publicKey: string | null = null;
  try {
    publicKey = formatPublicKey(parsePublicKey(readFileSync(join(dirname(o.db), 'audit.pub'), 'utf8'))).trim();
  } catch {
    // No key beside the database: the bundle says so (null); the verifier uses the auditor's key anyway.
  }
  await write({ ...db, checkpoints }, publicKey);
}
