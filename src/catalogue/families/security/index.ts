import type { AnyAction } from '../../action.js';
import { setPasswordPolicy, showPasswordPolicy } from './password-quality.js';
import { passwordAgingDefaults, setPasswordAgingDefaults } from './login-defs.js';
import { addAuditWatch, auditStatus, listAuditRules, removeAuditWatch } from './audit.js';
import { appArmorStatus, setAppArmorMode } from './apparmor.js';
import { listSelinuxBooleans, selinuxStatus, setSelinuxBoolean, setSelinuxMode } from './selinux.js';
import { certificateExpiry, listCertificates } from './certificates.js';

/** The security family: password quality and ageing defaults, audit watches, AppArmor and SELinux modes, TLS certificates. */
export const actions: readonly AnyAction[] = [
  showPasswordPolicy,
  setPasswordPolicy,
  passwordAgingDefaults,
  setPasswordAgingDefaults,
  auditStatus,
  listAuditRules,
  addAuditWatch,
  removeAuditWatch,
  appArmorStatus,
  setAppArmorMode,
  selinuxStatus,
  setSelinuxMode,
  listSelinuxBooleans,
  setSelinuxBoolean,
  certificateExpiry,
  listCertificates,
];
