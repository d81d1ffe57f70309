/** Default locations, shared by the daemon and its clients. AIRLOCK_SOCKET overrides the socket for clients. */
export const DEFAULT_SOCKET = '/run/airlock/airlock.sock';
export const DEFAULT_STATE_DIR = '/var/lib/airlock';
export const DEFAULT_LOG_DIR = '/var/log/airlock';
export const DEFAULT_CONFIG_DIR = '/etc/airlock';
/** The human's policy (src/policy/policy.ts parses it). */
export const DEFAULT_POLICY_PATH = '/etc/airlock/policy.toml';
export const DEFAULT_RUNTIME_DIR = '/run/airlock';

/**
 * The directories' modes, one value each wherever they are set: the daemon at start,
 * `airlock install`, the systemd unit and the tmpfiles entry a reboot applies.
 * The socket's directory and the log directory are 0755: every client reaches the socket,
 * and an auditor without root reads the world-readable checkpoint file (0644). The state
 * directory (store and keys) is 0700: nobody but root reads it.
 */
export const RUNTIME_DIR_MODE = 0o755;
export const STATE_DIR_MODE = 0o700;
export const LOG_DIR_MODE = 0o755;
export const CONFIG_DIR_MODE = 0o755;
/** A mode as systemd and chmod(1) write it: 0755. */
export const octal = (mode: number) => mode.toString(8).padStart(4, '0');

/** Names the log a host's store holds (its first key's id), written once a store is open (daemon/main.ts loadLogId). */
export const LOG_ID_FILE = 'log-id';
/** Every audit public key the log was signed with, one a line, as rotations introduced them. */
export const AUDIT_KEY_HISTORY_FILE = 'audit-keys.pub';

export const stateFiles = (stateDir: string, logDir: string) => ({
  db: `${stateDir}/airlock.db`,
  auditKey: `${stateDir}/audit.key`,
  approvalKey: `${stateDir}/approval.key`,
  /** Seals the approvers' second-factor secrets in the store (AES-256-GCM). */
  totpKey: `${stateDir}/totp.key`,
  /** Keys the pseudonyms the policy's [masking] asks for (HMAC-SHA256): stable on this host, unguessable elsewhere. */
  maskKey: `${stateDir}/mask.key`,
  /** A PostgreSQL store's row MACs (src/store/row-mac.ts, HMAC-SHA256): never in the database; made at the first start. */
  rowKey: `${stateDir}/row.key`,
  publicKey: `${stateDir}/audit.pub`,
  auditKeyHistory: `${stateDir}/${AUDIT_KEY_HISTORY_FILE}`,
  logId: `${stateDir}/${LOG_ID_FILE}`,
  checkpoints: `${logDir}/checkpoints.log`,
  /** Archived segments of the signed log (src/daemon/archiver.ts), unless the policy's [store] archive_dir names another place. */
  archive: `${stateDir}/archive`,
  /** Staged copies of configuration text being checked (src/daemon/staged-check.ts), one fresh directory each, removed after. */
  checks: `${stateDir}/checks`,
});

export const RECEIPT_TTL_MINUTES = 15;
