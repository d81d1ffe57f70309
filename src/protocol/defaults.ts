/** Default locations, shared by the daemon and its clients. AIRLOCK_SOCKET overrides the socket for clients. */
export const DEFAULT_SOCKET = '/run/airlock/airlock.sock';
export const DEFAULT_STATE_DIR = '/var/lib/airlock';
export const DEFAULT_LOG_DIR = '/var/log/airlock';
export const DEFAULT_CONFIG_DIR = '/etc/airlock';
/** The human's policy (src/policy/policy.ts parses it). */
export const DEFAULT_POLICY_PATH = '/etc/airlock/policy.toml';

export const stateFiles = (stateDir: string, logDir: string) => ({
  db: `${stateDir}/airlock.db`,
  auditKey: `${stateDir}/audit.key`,
  approvalKey: `${stateDir}/approval.key`,
  /** Seals the approvers' second-factor secrets in the store (AES-256-GCM). */
  totpKey: `${stateDir}/totp.key`,
  /** Keys the pseudonyms the policy's [masking] asks for (HMAC-SHA256): stable on this host, unguessable elsewhere. */
  maskKey: `${stateDir}/mask.key`,
  publicKey: `${stateDir}/audit.pub`,
  checkpoints: `${logDir}/checkpoints.log`,
});

export const RECEIPT_TTL_MINUTES = 15;
