/**
 * `airlock daemon`: the privileged entry point. bin/airlock.js routes here so that
 * the unprivileged CLI never imports daemon code.
 */
import { parseArgs } from 'node:util';
import { join } from 'node:path';
import { existsSync } from 'node:fs';
import { DEFAULT_CONFIG_DIR, DEFAULT_LOG_DIR, DEFAULT_SOCKET, DEFAULT_STATE_DIR, RECEIPT_TTL_MINUTES, stateFiles } from '../protocol/defaults.js';
import { AirlockError } from '../protocol/errors.js';
import { daemonLogLine } from './log-lines.js';
import { startDaemon } from './main.js';
import { isPostgresUrl } from '../audit/pg-url.js';
import { installStore, storeSql, type StoreInstallOptions } from '../store/fleet-install.js';

/** --provision-store: the script (--print-sql), or what was done one line each; errors as JSON on stderr. */
function provision(o: Partial<StoreInstallOptions> & { store: string }, printSql: boolean): void {
  const opts: StoreInstallOptions = { store: o.store, ...(o.storeRole ? { storeRole: o.storeRole } : {}), ...(o.auditorRole ? { auditorRole: o.auditorRole } : {}) };
  const fail = (e: unknown) => {
    const err = e instanceof AirlockError ? e : new AirlockError('execution', 'provision_failed', (e as Error).message);
    process.stderr.write(`${JSON.stringify(err.toWire())}\n`);
    process.exit(1);
  };
  try {
    if (printSql) return void process.stdout.write(storeSql(opts));
    installStore(opts).then((done) => process.stdout.write(done.map((d) => `${d}\n`).join('')), fail);
  } catch (e) {
    fail(e);
  }
}

const HELP = `Usage: airlock daemon [options]

Runs the Airlock daemon (as root). It listens on a Unix socket, learns who is
asking from the kernel, and keeps its store, keys and checkpoints in the paths
below. Normally started by systemd (see \`airlock install\`).

Options:
  --socket PATH          socket to listen on (default ${DEFAULT_SOCKET})
  --state-dir DIR        database and keys (default ${DEFAULT_STATE_DIR})
  --log-dir DIR          checkpoint file (default ${DEFAULT_LOG_DIR})
  --policy FILE          the human's policy: auto-approval rules, raised risks, unattended
                         users, second factor, notifications (default ${DEFAULT_CONFIG_DIR}/policy.toml;
                         root-owned; absent: non-sensitive reads are approved, nothing else)
  --receipt-ttl MIN      minutes a receipt stays valid (default ${RECEIPT_TTL_MINUTES})
  --approval-ttl MIN     minutes a preview waits for approval (default ${RECEIPT_TTL_MINUTES})
  --sweep-interval SEC   how often expired transactions are canceled (default 30)
  --checkpoint-interval MS  how soon after an approval or outcome a tree head is signed (default 200;
                         0 = after every entry); the schedule and remote sinks are the policy's [audit]
  --idle-timeout SEC     drop a connection silent this long with no request running (default 120)
  --listen-tcp ADDR:PORT also listen on TCP (e.g. 127.0.0.1:7070); clients authenticate with a token
  --token-socket PATH    also listen on a Unix socket authenticated by token, for a vsock bridge
                         (socat VSOCK-LISTEN:PORT,fork UNIX-CONNECT:PATH or systemd-socket-proxyd)
  --tokens FILE          token principals: name, role, unattended, SHA-256 of the token
                         (default ${DEFAULT_CONFIG_DIR}/tokens.toml; root-owned, mode 0600)
  --store URL            keep the store in PostgreSQL (postgres://user@host:port/db) instead of
                         the SQLite file in the state directory; many hosts may share one
                         database, each with its own log (named by its audit key id)
  --no-syslog            do not copy checkpoints to the local syslog (logger)
  --test-fault-file PATH for tests only: while PATH exists, every change fails after its last
                         step, so that its automatic rollback runs (never set on a real host)
  --provision-store URL  do not start: create this host's part of a fleet database (tables,
                         row-level security, its role; --store-role R, --auditor-role A) and
                         exit; with --print-sql, print that script instead (\`airlock install --store\`)
  -h, --help             this text

Exit status: 0 after a clean stop (SIGTERM/SIGINT), 9 when start-up checks fail
(readable key file, a missing totp.key for a store whose second-factor secrets are sealed
under it, a policy that is invalid or not root-owned, unreadable store), 2 on bad options.
`;

function main(): void {
  // Programs the daemon runs (package maintainer scripts among them) must create files with
  // the usual modes, so the umask stays 022; the daemon's own files are private by their
  // directory's mode (0700), set explicitly in main.ts.
  process.umask(0o022);
  process.on('unhandledRejection', (e) => daemonLogLine(`unhandled rejection (kept running): ${(e as Error)?.stack ?? e}`)); // in order with the daemon's other lines
  let v;
  try {
    v = parseArgs({
      args: process.argv.slice(3),
      options: {
        socket: { type: 'string' },
        'state-dir': { type: 'string' },
        'log-dir': { type: 'string' },
        policy: { type: 'string' },
        'listen-tcp': { type: 'string' },
        'token-socket': { type: 'string' },
        tokens: { type: 'string' },
        'receipt-ttl': { type: 'string' },
        'approval-ttl': { type: 'string' },
        'sweep-interval': { type: 'string' },
        'checkpoint-interval': { type: 'string' },
        'idle-timeout': { type: 'string' },
        'no-syslog': { type: 'boolean' },
        'test-fault-file': { type: 'string' },
        store: { type: 'string' },
        'provision-store': { type: 'string' },
        'store-role': { type: 'string' },
        'auditor-role': { type: 'string' },
        'print-sql': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }).values;
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n\n${HELP}`);
    process.exit(2);
  }
  if (v.help) {
    process.stdout.write(HELP);
    return;
  }
  if (v['provision-store'] !== undefined) {
    provision({ store: v['provision-store'], storeRole: v['store-role'], auditorRole: v['auditor-role'] }, v['print-sql'] === true);
    return;
  }
  const num = (name: string, raw: string | undefined, dflt: number, min: number) => {
    if (raw === undefined) return dflt;
    const n = Number(raw);
    if (!Number.isFinite(n) || n < min) {
      process.stderr.write(`--${name} must be a number >= ${min}\n`);
      process.exit(2);
    }
    return n;
  };
  let tcp: { host: string; port: number } | undefined;
  if (v['listen-tcp'] !== undefined) {
    const m = /^(\[[0-9a-fA-F:]+\]|[0-9.]+|localhost):([0-9]{1,5})$/.exec(v['listen-tcp']);
    if (!m || Number(m[2]) > 65535) {
      process.stderr.write('--listen-tcp takes ADDRESS:PORT, e.g. 127.0.0.1:7070 or [::1]:7070\n');
      process.exit(2);
    }
    tcp = { host: m[1]!.replace(/^\[|\]$/g, ''), port: Number(m[2]) };
  }
  const stateDir = v['state-dir'] ?? DEFAULT_STATE_DIR;
  const files = stateFiles(stateDir, v['log-dir'] ?? DEFAULT_LOG_DIR);
  const storeUrl = v.store;
  if (storeUrl !== undefined && !isPostgresUrl(storeUrl)) {
    process.stderr.write('--store takes a PostgreSQL URL: postgres://user@host:port/database\n');
    process.exit(2);
  }
  // A key that has signed a log never opens another from entry 1: under the same origin, the
  // host's own checkpoint file would show two roots for one size, a fork. Both ways: a SQLite
  // host started on the database, and a database host started without --store (its drop-in lost).
  const aside = join(stateDir, storeUrl !== undefined ? 'before-store' : 'before-sqlite');
  const setAside = `mkdir ${aside} && mv ${files.db}* ${files.auditKey} ${files.publicKey} ${files.auditKeyHistory} ${files.logId} ${aside}/`;
  if (storeUrl !== undefined && existsSync(files.db)) {
    process.stderr.write(
      `${files.db} holds this host's log, signed with its audit key: started on the database with that key, the daemon would sign a second history from entry 1, which every verifier of this host's checkpoints calls a fork. Nothing was started.\n` +
        `Keep this host on SQLite (no --store), or set the old log aside with its keys first (the files that exist); the next start then makes a new key for the log in the database, and the old log stays verifiable (airlock audit verify --db ${aside}/airlock.db --pubkey ${aside}/audit.pub):\n  ${setAside}\n`,
    );
    process.exit(2);
  }
  // log-id is written once a store is open (daemon/main.ts): a key made by a first start that
  // failed before that (a policy error), or provisioned ahead, has signed nothing.
  if (storeUrl === undefined && !existsSync(files.db) && existsSync(files.auditKey) && existsSync(files.logId)) {
    process.stderr.write(
      `${files.auditKey} is this host's audit key and it signed a log (log-id), but ${files.db} holds none: the key's log is elsewhere (a database, if the daemon ran with --store). Started so, it would sign a second history from entry 1, which every verifier of this host's checkpoints calls a fork. Nothing was started.\n` +
        `Start it with the --store it ran with (systemctl cat airlock: a drop-in may be missing), or, to begin a new log here under a new key, set the old key aside first (the files that exist):\n  ${setAside}\n`,
    );
    process.exit(2);
  }
  // With PostgreSQL the first start of this host is the one with no audit key yet: new keys
  // open a new log beside the others (its id is the new key id) and never continue an old one.
  const firstStart = storeUrl !== undefined ? !existsSync(files.auditKey) : !existsSync(files.db);
  startDaemon({
    socketPath: v.socket ?? DEFAULT_SOCKET,
    dbPath: files.db,
    ...(storeUrl !== undefined ? { storeUrl } : {}),
    auditKeyPath: files.auditKey,
    approvalKeyPath: files.approvalKey,
    totpKeyPath: files.totpKey,
    maskKeyPath: files.maskKey,
    publicKeyPath: files.publicKey,
    checkpointPath: files.checkpoints,
    policyPath: v.policy ?? `${DEFAULT_CONFIG_DIR}/policy.toml`,
    tokensPath: v.tokens ?? `${DEFAULT_CONFIG_DIR}/tokens.toml`,
    ...(tcp ? { tcp } : {}),
    ...(v['token-socket'] ? { tokenSocketPath: v['token-socket'] } : {}),
    receiptTtlMs: num('receipt-ttl', v['receipt-ttl'], RECEIPT_TTL_MINUTES, 0.01) * 60_000,
    approvalTtlMs: num('approval-ttl', v['approval-ttl'], RECEIPT_TTL_MINUTES, 0.01) * 60_000,
    sweepIntervalMs: num('sweep-interval', v['sweep-interval'], 30, 0.05) * 1000,
    checkpointIntervalMs: num('checkpoint-interval', v['checkpoint-interval'], 200, 0),
    ...(v['idle-timeout'] !== undefined ? { idleMs: num('idle-timeout', v['idle-timeout'], 120, 0.1) * 1000 } : {}),
    syslog: !v['no-syslog'],
    ...(v['test-fault-file'] !== undefined ? { testFaultFile: v['test-fault-file'] } : {}),
    // Keys are created only with a brand-new store: a store without its keys is an error, not a fresh start.
    createKeys: firstStart,
  }).then(
    (d) => {
      const stop = () => d.stop().then(() => process.exit(0));
      process.once('SIGTERM', stop);
      process.once('SIGINT', stop);
    },
    (e) => {
      const msg = e instanceof AirlockError ? `${e.message}${e.hint ? `\n  next: ${e.hint}` : ''}` : (e as Error).stack;
      daemonLogLine(`cannot start: ${msg}`); // after the lines before it, written at exit
      process.exit(9);
    },
  );
}

main();
