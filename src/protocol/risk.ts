/** LACS §3 risk levels and §4 roles. Pure data, shared by every side of the socket. */
export const RISKS = ['low', 'medium', 'high'] as const;
export type Risk = (typeof RISKS)[number];

export const ROLES = ['observer', 'dev', 'admin', 'boot'] as const;
export type Role = (typeof ROLES)[number];

/**
 * The Unix group that gives each role: the daemon maps a peer's groups to its highest role
 * (src/daemon/identity.ts), `airlock install` creates them, and the catalogue refuses to
 * change them. Named once here so those places cannot disagree.
 */
export const ROLE_GROUPS = {
  observer: 'airlock-observer',
  dev: 'airlock-dev',
  admin: 'airlock-admin',
  boot: 'airlock-boot',
} as const satisfies Record<Role, string>;
/** Membership makes a person an approver (with the role their other groups give); alone it gives no role. */
export const APPROVER_GROUP = 'airlock-approvers';
/** Every group Airlock reads: the role groups in ROLES order, then the approvers. */
export const AIRLOCK_GROUPS: readonly string[] = [...ROLES.map((r) => ROLE_GROUPS[r]), APPROVER_GROUP];

/** Authority order for the risk-derived roles. Boot stands apart (LACS §4.1): it is not above Observer for risk. */
const RANK: Record<Role, number> = { observer: 1, dev: 2, admin: 3, boot: 1 };

const MIN_ROLE: Record<Risk, Role> = { low: 'observer', medium: 'dev', high: 'admin' };

export function minRoleForRisk(risk: Risk): Role {
  return MIN_ROLE[risk];
}

export function roleSatisfies(have: Role, need: Role): boolean {
  return RANK[have] >= RANK[need];
}

export function riskRank(risk: Risk): number {
  return RISKS.indexOf(risk);
}

/** LACS §5 job states. */
export const JOB_STATES = ['Queued', 'Running', 'Succeeded', 'Failed', 'Canceled', 'RolledBack', 'NeedsReboot'] as const;
export type JobState = (typeof JOB_STATES)[number];
export const TERMINAL_STATES: readonly JobState[] = ['Succeeded', 'Failed', 'Canceled', 'RolledBack', 'NeedsReboot'];
/** Before any receipt is minted a transaction is "Previewed"; it becomes Queued once approved. */
export type TxState = 'Previewed' | JobState;
