/**
 * Starts the daemon: keys, store, crash reconciliation, sweeps, checkpoints,
 * listener. Anything wrong at start (a readable key, a lowering override, a store
 * it cannot open) stops it with a message, rather than running half-configured.
 */
import { currentBootId, reconcileReboots } from './reboots.js';
import { chmodSync, mkdirSync, writeFileSync, readFileSync, existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { formatPublicKey, loadKeyFile, publicKeyFromRaw } from '../audit/keys.js';
import { ROTATING_KEYS, type RotatingKey } from '../audit/rotation.js';
import { KeyFiles } from './key-files.js';
import { KeyRotator, recoverRotation } from './key-rotation.js';
import { AuditSealer } from './sealer.js';
import { checkpointOrigin } from '../audit/checkpoint.js';
import { signTreeHead } from '../audit/note.js';
import { TreeHeads } from './tree-heads.js';
import { AirlockError } from '../protocol/errors.js';
import { AUDIT_KEY_HISTORY_FILE, LOG_DIR_MODE, LOG_ID_FILE, RUNTIME_DIR_MODE, STATE_DIR_MODE, stateFiles } from '../protocol/defaults.js';
import { SqliteStore } from '../store/sqlite.js';
import { openPostgresStore } from '../store/postgres.js';
import type { Store, LogHead } from '../store/store.js';
import { DAEMON_ACT, entryDraft, type EntryDraft } from '../audit/entry.js';
import { consistencyProof } from '../audit/merkle.js';
import { buildPublisher } from './sinks/setup.js';
import { Archiver } from './archiver.js';
import { signSegmentRange } from '../audit/segment-range.js';
import { startOfBase } from '../audit/log-base.js';
import { Executor } from './executor.js';
import { RealHost } from './host.js';
import { detectPlatform } from './platform.js';
import { resolvePrograms } from './programs.js';
import { loadPolicyFile } from './policy-file.js';
import { notifier } from './notify.js';
import { DiskSpace } from './disk-space.js';
import type { StorageSpace } from '../protocol/messages.js';
import { journal } from './journal.js';
import { startServer } from './server.js';
import { VERSION } from './connection.js';
import { logMaskOverruns, maskPool } from './output.js';
import { daemonLogLine } from './log-lines.js';
import { AirlockService } from './service.js';
import { VerbContext } from './verbs/context.js';
import { native } from '../native/addon.js';
import { SecondFactor } from './second-factor.js';
import { RetentionSweep } from './retention.js';
import { openTotpSeal } from './totp-seal.js';
import { checkTrustedPath } from './trusted-path.js';
import { hostname } from 'node:os';
import { ENROLMENT_RULES } from '../audit/lifecycle.js';

export interface DaemonConfig {
  socketPath: string;
  dbPath: string;
  /** A PostgreSQL URL: the store lives there (this host's log among others) instead of in dbPath. */
  storeUrl?: string;
  auditKeyPath: string;
  approvalKeyPath: string;
  /** Seals the second-factor secrets in the store (created with a store not yet sealed). */
  totpKeyPath: string;
  /** The key of the policy's pseudonyms ([masking]); created at the first start. */
  maskKeyPath: string;
  publicKeyPath: string;
  checkpointPath: string;
  /** The human's policy (absent file: the built-in default). */
  policyPath: string;
  /** Token principals for the TCP and token-socket listeners (absent file: none). */
  tokensPath: string;
  tcp?: { host: string; port: number };
  tokenSocketPath?: string;
  approvalTtlMs: number;
  receiptTtlMs: number;
  sweepIntervalMs: number;
  checkpointIntervalMs: number;
  /** A connection with no traffic and no request running is dropped after this (default IDLE_MS, 120 s). */
  idleMs?: number;
  syslog: boolean;
  /** Create missing keys (first start); existing ones are always checked. */
  createKeys: boolean;
  log?: (msg: string) => void;
  /** Tests only (--test-fault-file): while this file exists, every change fails after its last step. */
  testFaultFile?: string;
}

export interface RunningDaemon {
  /** Stops accepting, drops connections, writes a last checkpoint, closes the store. */
  stop(): Promise<void>;
}

/**
 * The key of this host's row MACs in a shared database (src/store/row-mac.ts), created at the
 * first start like the other keys. Rows without a MAC are adopted only when the key is new.
 */
function rowKey(stateDir: string): { rowKey: Buffer; adoptRows: boolean } {
  const path = stateFiles(stateDir, '').rowKey;
  const adoptRows = !existsSync(path);
  return { rowKey: loadKeyFile(path, { create: true }), adoptRows };
}

export async function startDaemon(c: DaemonConfig): Promise<RunningDaemon> {
  const log = c.log ?? daemonLogLine;
  native(); // fail now, not at the first connection, if the addon is missing
  // The mask workers start now: the first client's answer does not wait for them to load.
  logMaskOverruns(log);
  maskPool();
  // Clients need to reach the socket; nobody else needs the store, keys or checkpoints.
  const dirMode = (dir: string, mode: number) => {
    mkdirSync(dir, { recursive: true, mode });
    chmodSync(dir, mode); // mkdir's mode passes through the umask and leaves an existing directory as it was
  };
  dirMode(dirname(c.socketPath), RUNTIME_DIR_MODE);
  for (const p of new Set([c.dbPath, c.auditKeyPath, c.approvalKeyPath, c.totpKeyPath, c.maskKeyPath].map((p) => dirname(p)))) dirMode(p, STATE_DIR_MODE);
  dirMode(dirname(c.checkpointPath), LOG_DIR_MODE);
  // Each rotating key: its seed, its history beside it, and for the audit key the one-line public key file.
  const stateDir = dirname(c.auditKeyPath);
  const files: Record<RotatingKey, KeyFiles> = {
    audit: new KeyFiles({ seed: c.auditKeyPath, history: join(dirname(c.publicKeyPath), AUDIT_KEY_HISTORY_FILE), publicKey: c.publicKeyPath }, c.createKeys),
    approval: new KeyFiles({ seed: c.approvalKeyPath, history: join(dirname(c.approvalKeyPath), 'approval-keys.pub') }, c.createKeys),
  };
  const policy = loadPolicyFile(c.policyPath);

  const journalEntries = journal(log);
  const sealer = new AuditSealer(files.audit.current);
  // Nothing is appended before the publisher exists (it needs the log id, read from the store).
  let checkpoints: ReturnType<typeof buildPublisher> | null = null;
  const onAppend = (head: LogHead, entries: readonly EntryDraft[]) => {
    checkpoints?.note(head, entries.map((e) => e.kind));
    journalEntries(entries);
  };
  const logIdPath = join(stateDir, LOG_ID_FILE);
  // Each host's daemon has its own log in a shared PostgreSQL database, under its log id: the one in
  // log-id, or for a new log the current audit key's (loadLogId then checks it against entry 1).
  const claimedLogId = existsSync(logIdPath) ? readFileSync(logIdPath, 'utf8').trim() : files.audit.current.keyId;
  const store: Store =
    c.storeUrl !== undefined
      ? await openPostgresStore({ url: c.storeUrl, logId: claimedLogId, origin: checkpointOrigin(hostname(), claimedLogId), seal: sealer.seal, onAppend, ...rowKey(stateDir) })
      : new SqliteStore(c.dbPath, sealer.seal, onAppend);
  const logId = await loadLogId(logIdPath, store, files.audit.current.keyId);
  const origin = checkpointOrigin(hostname(), logId);
  // Signed tree heads to the local file and every sink the policy's [audit] names (src/daemon/sinks), with the key current at signing.
  checkpoints = buildPublisher({
    key: () => sealer.current,
    origin,
    file: c.checkpointPath,
    hostName: hostname(),
    audit: policy.audit,
    coalesceMs: c.checkpointIntervalMs,
    localSyslog: c.syslog,
    proof: (oldSize, newSize) => consistencyProof(oldSize, newSize, store.merkleNodes),
    log,
  });
  // A rotation the last run left half done is finished (the log names the pending key) or discarded.
  for (const k of ROTATING_KEYS) await recoverRotation(store, k, files[k], log);
  sealer.use(files.audit.current);
  for (const k of ROTATING_KEYS) files[k].ensureHistory();
  const auditKey = files.audit.current;
  const approvalKey = files.approval.current;
  if (auditKey.keyId === approvalKey.keyId) throw new AirlockError('integrity', 'same_keys', 'the audit key and the approval key must differ');
  await checkLogHeadKey(store, auditKey.keyId, c.auditKeyPath);
  const seal = await openTotpSeal(store, c.totpKeyPath, log);
  const pseudonymKey = loadKeyFile(c.maskKeyPath, { create: true });
  const executor = new Executor({ programs: resolvePrograms() });
  const platform = detectPlatform(existsSync('/etc/os-release') ? readFileSync('/etc/os-release', 'utf8') : null);
  const host = new RealHost(platform, executor, { checksDir: stateFiles(stateDir, '').checks });
  host.useStore(store);
  // The disk-space thresholds ask the service for the policy in force, which a reload replaces.
  let service: AirlockService | undefined = undefined;
  const secondFactor = new SecondFactor({ store, now: Date.now, hostName: hostname(), seal });
  let daemon: RunningDaemon | null = null;
  const rotator = new KeyRotator({
    store,
    sealer,
    files,
    logId,
    // Fail closed: the log and the keys may disagree, so nothing more is signed until a restart settles it.
    fatal: (why) => {
      log(why);
      void (daemon?.stop() ?? Promise.resolve()).finally(() => process.exit(9));
    },
  });
  const approvalKeys = {
    get current() {
      return files.approval.current;
    },
    retired: () => files.approval.history().filter((l) => l.keyId !== files.approval.current.keyId).map((l) => publicKeyFromRaw(l.raw)),
  };
  const notify = notifier(log);
  // Disk pressure in the store's directory: each change of state goes to stderr, the notifier and the signed log, once.
  const space = new DiskSpace({
    dir: dirname(c.dbPath),
    thresholds: () => (service?.currentPolicy ?? policy).store,
    log,
    onTransition: (s) => pressureChanged(s, service?.currentPolicy ?? policy, { store, notify, log }),
  });
  const treeHeads = new TreeHeads(store, (size, root) => signTreeHead(sealer.current, origin, size, root, new Date()));
  const audit = { treeHeads, publicKey: () => ({ public_key: formatPublicKey(sealer.current.publicRaw).trim(), key_history: files.audit.historyText(), log_id: logId, origin, checkpoint_file: resolve(c.checkpointPath) }), checkpointPath: c.checkpointPath };
  if (c.testFaultFile) {
    // Whoever may create this file makes every change fail: only root's directories will do, and the log says it is on.
    await checkTrustedPath(dirname(c.testFaultFile));
    log(`TEST MODE: --test-fault-file ${c.testFaultFile}: every change fails after its last step while that file exists (never on a real host)`);
  }
  const ctx = new VerbContext({ store, host, executor, approvalKey: approvalKeys, rotator, audit, policy, policyPath: c.policyPath, tokensPath: c.tokensPath, notify, space, approvalTtlMs: c.approvalTtlMs, receiptTtlMs: c.receiptTtlMs, secondFactor, hostName: hostname(), pseudonymKey, log, ...(c.testFaultFile ? { testFaultFile: c.testFaultFile } : {}) });
  service = new AirlockService(ctx);

  const reconciled = await service.reconcile();
  if (reconciled.length) log(`reconciled ${reconciled.length} job(s) interrupted by the last stop: ${reconciled.join(', ')}`);
  // Changes that waited for a reboot, recorded in another boot: the host came back, so they are done (reboots.ts).
  const bootId = currentBootId();
  const rebooted = await reconcileReboots(ctx, bootId);
  if (rebooted.length) log(`boot ${bootId}: ${rebooted.length} change(s) that needed a reboot are done: ${rebooted.join(', ')}`);
  await store.appendEntries([
    entryDraft('daemon_started', DAEMON_ACT, { version: VERSION, platform: platform ?? 'unrecognised', policy_digest: policy.digest, policy_source: policy.source, audit_key_id: auditKey.keyId, approval_key_id: approvalKey.keyId, log_id: logId, reconciled: reconciled.length, enrolment_rules: ENROLMENT_RULES, ...(c.testFaultFile ? { test_fault_file: c.testFaultFile } : {}) }),
  ]);
  const svc = service;
  // The oldest segment of the log moves to the archive when one is due (src/daemon/archiver.ts).
  const archiver = new Archiver({
    store,
    dir: () => svc.currentPolicy.store.archiveDir ?? stateFiles(dirname(c.dbPath), dirname(c.checkpointPath)).archive,
    // The default lies inside the state directory, which only root can change; a policy's archive_dir may lie anywhere.
    trustDir: async (dir) => {
      if (svc.currentPolicy.store.archiveDir !== null) await checkTrustedPath(dir);
    },
    settings: () => svc.currentPolicy.store,
    sign: (size, root, at) => signTreeHead(sealer.current, origin, size, root, at),
    signRange: (first, last) => signSegmentRange(sealer.current, logId, first, last),
    publicKeys: () => ({ all: files.audit.history().map((l) => l.raw), current: sealer.current.publicRaw }),
    logId,
    log,
    checkpoints: checkpoints.file,
  });
  space.sample(); // a disk already low at start is recorded now; the reserve is written if there is room
  const retention = new RetentionSweep(store, () => svc.currentPolicy.store, Date.now, log);
  const sweep = setInterval(() => {
    space.sample(); // recovery is seen with no preview asking
    service.sweep().then(
      (ids) => ids.length && log(`expired ${ids.length} transaction(s)`),
      (e) => log(`sweep failed: ${(e as Error).message}`),
    );
    archiver.archiveDue().catch((e) => log(`archival failed (the log stays in the store; retried at the next sweep): ${(e as Error).message}`));
    void retention.run(); // logs its own failures; skips a turn while the last one runs
  }, c.sweepIntervalMs);
  sweep.unref();

  const listener = await startServer({ socketPath: c.socketPath, service, log, tcp: c.tcp, tokenSocketPath: c.tokenSocketPath, tokens: () => svc.tokens, ...(c.idleMs !== undefined ? { idleMs: c.idleMs } : {}) });
  log(`listening on ${c.socketPath} (platform ${platform ?? 'unrecognised'}, audit key ${auditKey.keyId}, checkpoints of ${origin})`);
  let stopping: Promise<void> | null = null;
  return (daemon = {
    stop: () =>
      (stopping ??= (async () => {
        clearInterval(sweep);
        await listener.close();
        await svc.refusals.flush(true).catch((e) => log(`could not record the last refusal counts: ${(e as Error).message}`));
        // Bounded: a sink that does not answer cannot hold the stop (each sink has its own lane: the file never waits for the network).
        await checkpoints?.stop(3_000);
        await space.settled();
        await store.close();
      })()),
  });
}

/**
 * A change of disk pressure: told to the notifier, and recorded as a signed entry, whose journal
 * line (journal.ts) says it on stderr; when the disk does not let even that be written, stderr
 * says so directly.
 */
function pressureChanged(s: StorageSpace, policy: ReturnType<typeof loadPolicyFile>, o: { store: Store; notify: ReturnType<typeof notifier>; log: (m: string) => void }): void {
  o.notify(policy, { event: 'storage_pressure', state: s.state, state_dir: s.state_dir, free_bytes: s.free_bytes, min_free_bytes: s.min_free_bytes, at: new Date().toISOString() });
  const details = { state: s.state, state_dir: s.state_dir, free_bytes: s.free_bytes, min_free_bytes: s.min_free_bytes, reserve_bytes: s.reserve_bytes, reserve_held: s.reserve_held };
  o.store
    .appendEntries([entryDraft('storage_pressure', DAEMON_ACT, details)])
    .catch((e: Error) => o.log(`disk space ${s.state}: ${s.free_bytes} bytes free in ${s.state_dir} (min_free ${s.min_free_bytes}); this could not be recorded in the log: ${e.message}`));
}

/**
 * The log's id (checkpoint origins and rotations name it): the key id of its first audit key, kept
 * in `log-id` (16 hex digits, 0644). Absent, it is written: entry 1's key id, or for an empty log
 * the current key's. Present, it must be entry 1's key id: a state directory put together from
 * two logs does not start.
 */
async function loadLogId(path: string, store: Store, currentKeyId: string): Promise<string> {
  // Once entries were archived, entry 1 is in the archive: the base's signed tree head names the log.
  const archived = startOfBase(store.logBase());
  const [first] = !archived && store.logHead().size > 0 ? await store.logRows(0, 1) : [];
  const firstKey = archived ? archived.start.logId : first ? (JSON.parse(first.body) as { key_id?: unknown }).key_id : currentKeyId;
  if (typeof firstKey !== 'string' || !/^[0-9a-f]{16}$/.test(firstKey)) throw new AirlockError('integrity', 'bad_log_id', 'the log\'s first entry names no key id');
  if (!existsSync(path)) {
    writeFileSync(path, `${firstKey}\n`, { mode: 0o644, flag: 'wx' });
    chmodSync(path, 0o644);
    return firstKey;
  }
  const text = readFileSync(path, 'utf8').trim();
  if (!/^[0-9a-f]{16}$/.test(text)) throw new AirlockError('integrity', 'bad_log_id', `${path} does not hold a log id (16 hex digits)`, 'restore it: it is the key id of the log\'s first audit key, the key id of entry 1');
  if (text !== firstKey) throw new AirlockError('integrity', 'bad_log_id', `${path} names log ${text}, but this log's first entry is signed by key ${firstKey}`, 'restore the log-id file that belongs to this store');
  return text;
}

/** The log's last entry must be signed by the audit key the daemon holds: another key means a key file was replaced by hand. */
async function checkLogHeadKey(store: Store, keyId: string, path: string): Promise<void> {
  const head = store.logHead();
  if (head.size === 0) return;
  const [row] = await store.logRows(head.size - 1, 1);
  const last = row ? (JSON.parse(row.body) as { key_id?: unknown; kind?: unknown; details?: Record<string, unknown> }) : null;
  // After an audit rotation the entry is signed by the old key and names the new one.
  const expected = last?.kind === 'key_rotated' && last.details?.key === 'audit' ? last.details.new_key_id : last?.key_id;
  if (expected !== keyId) {
    throw new AirlockError('integrity', 'audit_key_mismatch', `the log's last entry (seq ${head.size}) calls for audit key ${String(expected)}, but ${path} holds key ${keyId}`, 'restore the audit key file that belongs to this log; a new key enters only with `airlock keys rotate audit`');
  }
}
