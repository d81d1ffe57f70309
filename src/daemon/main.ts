/**
 * Starts the daemon: keys, store, crash reconciliation, sweeps, checkpoints,
 * listener. Anything wrong at start (a readable key, a lowering override, a store
 * it cannot open) stops it with a message, rather than running half-configured.
 */
import { chmodSync, mkdirSync, writeFileSync, readFileSync, existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { formatPublicKey, loadKeyFile, loadSeedFile } from '../audit/keys.js';
import { sealEntry } from '../audit/entry.js';
import { checkpointOrigin } from '../audit/checkpoint.js';
import { signTreeHead } from '../audit/note.js';
import { TreeHeads } from './tree-heads.js';
import { AirlockError } from '../protocol/errors.js';
import { LOG_DIR_MODE, RUNTIME_DIR_MODE, STATE_DIR_MODE } from '../protocol/defaults.js';
import { SqliteStore } from '../store/sqlite.js';
import { openPostgresStore } from '../store/postgres.js';
import type { Store, Sealer, LogHead } from '../store/store.js';
import type { EntryDraft } from '../audit/entry.js';
import { consistencyProof } from '../audit/merkle.js';
import { buildPublisher } from './sinks/setup.js';
import { Executor } from './executor.js';
import { RealHost } from './host.js';
import { detectPlatform } from './platform.js';
import { resolvePrograms } from './programs.js';
import { loadPolicyFile } from './policy-file.js';
import { notifier } from './notify.js';
import { journal } from './journal.js';
import { startServer, VERSION } from './server.js';
import { AirlockService } from './service.js';
import { native } from './native.js';
import { SecondFactor } from './second-factor.js';
import { openTotpSeal } from './totp-seal.js';
import { hostname } from 'node:os';

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
}

export interface RunningDaemon {
  /** Stops accepting, drops connections, writes a last checkpoint, closes the store. */
  stop(): Promise<void>;
}

export async function startDaemon(c: DaemonConfig): Promise<RunningDaemon> {
  const log = c.log ?? ((m: string) => process.stderr.write(`airlock-daemon: ${m}\n`));
  native(); // fail now, not at the first connection, if the addon is missing
  // Clients need to reach the socket; nobody else needs the store, keys or checkpoints.
  const dirMode = (dir: string, mode: number) => {
    mkdirSync(dir, { recursive: true, mode });
    chmodSync(dir, mode); // mkdir's mode passes through the umask and leaves an existing directory as it was
  };
  dirMode(dirname(c.socketPath), RUNTIME_DIR_MODE);
  for (const p of new Set([c.dbPath, c.auditKeyPath, c.approvalKeyPath, c.totpKeyPath, c.maskKeyPath].map((p) => dirname(p)))) dirMode(p, STATE_DIR_MODE);
  dirMode(dirname(c.checkpointPath), LOG_DIR_MODE);
  const auditKey = loadSeedFile(c.auditKeyPath, c.createKeys);
  const approvalKey = loadSeedFile(c.approvalKeyPath, c.createKeys);
  if (auditKey.keyId === approvalKey.keyId) throw new AirlockError('integrity', 'same_keys', 'the audit key and the approval key must differ');
  const pub = formatPublicKey(auditKey.publicRaw);
  if (!existsSync(c.publicKeyPath) || readFileSync(c.publicKeyPath, 'utf8') !== pub) writeFileSync(c.publicKeyPath, pub);
  chmodSync(c.publicKeyPath, 0o644); // public by design, whatever the umask
  const policy = loadPolicyFile(c.policyPath);

  const origin = checkpointOrigin(hostname(), auditKey.keyId);
  const journalEntries = journal(log);
  // Signed tree heads to the local file and every sink the policy's [audit] names (src/daemon/sinks).
  const checkpoints = buildPublisher({
    key: auditKey,
    origin,
    file: c.checkpointPath,
    hostName: hostname(),
    audit: policy.audit,
    coalesceMs: c.checkpointIntervalMs,
    localSyslog: c.syslog,
    proof: (oldSize, newSize) => consistencyProof(oldSize, newSize, store.merkleNodes),
    log,
  });
  const sealer: Sealer = (draft, seq, prev) => sealEntry(auditKey, draft, seq, prev);
  const onAppend = (head: LogHead, entries: readonly EntryDraft[]) => {
    checkpoints.note(head, entries.map((e) => e.kind));
    journalEntries(entries);
  };
  // The log id is the audit key id: each host's daemon has its own log in a shared database.
  const store: Store = c.storeUrl !== undefined ? await openPostgresStore({ url: c.storeUrl, logId: auditKey.keyId, origin, seal: sealer, onAppend }) : new SqliteStore(c.dbPath, sealer, onAppend);
  const seal = await openTotpSeal(store, c.totpKeyPath, log);
  const pseudonymKey = loadKeyFile(c.maskKeyPath, { create: true });
  const executor = new Executor({ programs: resolvePrograms() });
  const platform = detectPlatform(existsSync('/etc/os-release') ? readFileSync('/etc/os-release', 'utf8') : null);
  const host = new RealHost(platform, executor);
  // The second factor asks the service for the policy in force, which a reload replaces.
  let service: AirlockService | undefined = undefined;
  const secondFactor = new SecondFactor({ store, now: Date.now, hostName: hostname(), seal });
  service = new AirlockService({ store, host, executor, approvalKey, policy, policyPath: c.policyPath, tokensPath: c.tokensPath, notify: notifier(log), approvalTtlMs: c.approvalTtlMs, receiptTtlMs: c.receiptTtlMs, secondFactor, pseudonymKey, log });

  const reconciled = await service.reconcile();
  if (reconciled.length) log(`reconciled ${reconciled.length} job(s) interrupted by the last stop: ${reconciled.join(', ')}`);
  await store.appendEntries([
    { kind: 'daemon_started', transaction_id: null, action_name: null, risk: null, request_hash: null, principal: null, details: { version: VERSION, platform: platform ?? 'unrecognised', policy_digest: policy.digest, policy_source: policy.source, audit_key_id: auditKey.keyId, approval_key_id: approvalKey.keyId, reconciled: reconciled.length } },
  ]);
  const sweep = setInterval(() => {
    service.sweep().then(
      (ids) => ids.length && log(`expired ${ids.length} transaction(s)`),
      (e) => log(`sweep failed: ${(e as Error).message}`),
    );
  }, c.sweepIntervalMs);
  sweep.unref();

  const svc = service;
  const treeHeads = new TreeHeads(store, (size, root) => signTreeHead(auditKey, origin, size, root, new Date()));
  const listener = await startServer({ socketPath: c.socketPath, service, treeHeads, publicKeyText: pub, checkpointPath: c.checkpointPath, log, tcp: c.tcp, tokenSocketPath: c.tokenSocketPath, tokens: () => svc.tokens, ...(c.idleMs !== undefined ? { idleMs: c.idleMs } : {}) });
  log(`listening on ${c.socketPath} (platform ${platform ?? 'unrecognised'}, audit key ${auditKey.keyId}, checkpoints of ${origin})`);
  let stopping: Promise<void> | null = null;
  return {
    stop: () =>
      (stopping ??= (async () => {
        clearInterval(sweep);
        await listener.close();
        await svc.refusals.flush(true).catch((e) => log(`could not record the last refusal counts: ${(e as Error).message}`));
        // Bounded: a sink that does not answer cannot hold the stop (each sink has its own lane: the file never waits for the network).
        await checkpoints.stop(3_000);
        await store.close();
      })()),
  };
}
