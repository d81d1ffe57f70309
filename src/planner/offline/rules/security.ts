/** Rules of the security family: password quality and ageing defaults, audit watches, AppArmor, SELinux, certificates. */
import { missing, rule, step, steps } from '../rule.js';
import { takeNumber, takeNumberAfter, takeNumberBefore, takePath, takeSwitch } from '../words.js';

const CERT_DIRS = ['/etc/ssl/certs', '/usr/local/share/ca-certificates', '/etc/letsencrypt/live'];

export const securityRules = [
  rule('security.password-policy', [['password policy', 'password quality', 'pwquality', 'password rules', 'password complexity', 'password strength']], () => steps(step('ShowPasswordPolicy', {}, 'the password quality policy')), { also: ['show', 'what', 'is', 'the', 'current'], unless: ['set', 'require', 'minimum', 'at least', 'change', 'make'] }),
  rule('security.password-length', [['password', 'passwords'], ['length', 'characters', 'chars', 'minlen', 'long', 'at least', 'minimum']], (c) => {
    const n = takeNumberBefore(c, ['characters', 'chars', 'long', 'letters']) ?? takeNumber(c, 8, 128);
    return n === null || n < 8 || n > 128 ? missing('the minimum length (8 to 128)') : steps(step('SetPasswordPolicy', { option: 'minlen', value: n }, `passwords need at least ${n} characters`));
  }, { also: ['require', 'set', 'make', 'must', 'be', 'have', 'the', 'of', 'to', 'policy', 'new', 'minimum', 'length'] }),
  rule('security.aging-defaults', [['password', 'passwords'], ['new accounts', 'new users', 'default', 'defaults', 'login.defs']], (c) => {
    const max = takeNumberBefore(c, ['days', 'day']) ?? takeNumberAfter(c, ['every']);
    return max === null ? steps(step('PasswordAgingDefaults', {}, 'the password ageing new accounts get (/etc/login.defs)')) : steps(step('SetPasswordAgingDefaults', { pass_max_days: max }, `passwords of new accounts expire after ${max} days`));
  }, { also: ['expire', 'expiry', 'aging', 'ageing', 'after', 'show', 'set', 'make', 'of', 'for', 'the', 'what', 'are'] }),
  rule('security.audit-status', [['auditd', 'audit status', 'kernel audit', 'audit daemon', 'auditing']], () => steps(step('AuditStatus', {}, 'the audit status and auditd')), { also: ['show', 'is', 'the', 'running', 'on', 'status', 'enabled'] }),
  rule('security.audit-rules', [['audit', 'auditd'], ['rules', 'watches', 'watch list']], () => steps(step('ListAuditRules', {}, 'the audit rules')), { also: ['show', 'list', 'which', 'what', 'the', 'loaded'], unless: ['add', 'remove', 'delete'] }),
  rule('security.audit-watch', [['watch', 'audit', 'monitor', 'track', 'log']], (c) => {
    const path = takePath(c, ['/etc', '/usr', '/var', '/bin', '/sbin', '/opt', '/srv', '/root', '/home', '/boot']);
    if (path === null) return missing('which file or directory to watch');
    const permissions = c.takeAny(['reads', 'read', 'access', 'accesses']) !== null ? 'rwa' : 'wa';
    const base = path.split('/').filter((p) => p !== '').join('-').toLowerCase().replace(/[^a-z0-9-]/g, '-').slice(0, 40);
    return steps(step('AddAuditWatch', { name: base, path, permissions, key: base.slice(0, 64) }, `audit ${permissions === 'wa' ? 'changes to' : 'access to'} ${path}`));
  }, { needs: (c) => c.tokens.some((t) => /^\/[A-Za-z0-9]/.test(t.raw)), also: ['for', 'changes', 'writes', 'modifications', 'to', 'of', 'the', 'who', 'changes', 'edits', 'file', 'add', 'an', 'rule'], unless: ['read', 'show', 'cat'] }),
  rule('security.remove-audit-watch', [['remove', 'delete', 'drop', 'stop'], ['watch', 'audit watch', 'audit rule', 'auditing']], (c) => {
    const name = c.takeToken((t) => c.isName(t) && /^[a-z0-9][a-z0-9-]{0,39}$/.test(t.low));
    return name === null ? missing('which audit watch (its name)') : steps(step('RemoveAuditWatch', { name: name.toLowerCase() }, `remove the audit watch ${name}`));
  }, { also: ['the', 'called', 'named', 'audit', 'on'] }),
  rule('security.apparmor', [['apparmor', 'aa-status', 'app armor']], (c) => {
    const mode = c.takeAny(['complain', 'enforce', 'enforcing']);
    if (mode === null) return steps(step('AppArmorStatus', {}, 'the AppArmor profiles and their modes'));
    const profile = c.after(['profile'], (t) => /^[A-Za-z0-9][A-Za-z0-9._+-]{0,127}$/.test(t.raw) && c.isName(t)) ?? c.before(['profile'], (t) => /^[A-Za-z0-9][A-Za-z0-9._+-]{0,127}$/.test(t.raw) && c.isName(t)) ?? c.takeToken((t) => c.isName(t) && /^[A-Za-z0-9][A-Za-z0-9._+-]{0,127}$/.test(t.raw));
    return profile === null ? missing('which AppArmor profile') : steps(step('SetAppArmorMode', { profile, mode: mode === 'complain' ? 'complain' : 'enforce' }, `put ${profile} in ${mode} mode`));
  }, { also: ['status', 'show', 'profiles', 'profile', 'mode', 'in', 'into', 'put', 'set', 'to', 'the', 'is', 'which', 'loaded'] }),
  rule('security.apparmor-mode', [['complain', 'enforce'], ['mode', 'profile']], (c) => {
    const mode = c.saidAny(['complain', 'enforce']) ?? 'enforce';
    const profile = c.takeToken((t) => c.isName(t) && /^[A-Za-z0-9][A-Za-z0-9._+-]{0,127}$/.test(t.raw));
    return profile === null ? missing('which AppArmor profile') : steps(step('SetAppArmorMode', { profile, mode }, `put ${profile} in ${mode} mode`));
  }, { also: ['in', 'into', 'put', 'set', 'to', 'the'] }),
  rule('security.selinux', [['selinux', 'se linux', 'sestatus', 'getenforce', 'setenforce']], (c) => {
    const mode = c.takeAny(['enforcing', 'enforce']) !== null ? 'enforcing' : c.takeAny(['permissive']) !== null ? 'permissive' : null;
    if (mode !== null) return steps(step('SetSelinuxMode', { mode }, `switch SELinux to ${mode}`));
    if (c.takeAny(['booleans', 'boolean', 'bools'])) {
      const name = c.takeToken((t) => /^[a-z][a-z0-9_]{2,127}$/.test(t.low) && t.low.includes('_'));
      const on = takeSwitch(c);
      if (name !== null && on !== null) return steps(step('SetSelinuxBoolean', { name, value: on }, `turn ${name} ${on ? 'on' : 'off'}`));
      return steps(step('ListSelinuxBooleans', {}, 'the SELinux booleans'));
    }
    return steps(step('SelinuxStatus', {}, 'whether SELinux enforces'));
  }, { also: ['status', 'show', 'is', 'mode', 'to', 'set', 'switch', 'the', 'put', 'in', 'list'] }),
  rule('security.cert-expiry', [['certificate', 'cert', 'certs', 'tls', 'ssl', 'certificates'], ['expire', 'expires', 'expiry', 'valid', 'validity', 'expiration', 'dates', 'until']], (c) => {
    const path = takePath(c, CERT_DIRS);
    return path === null ? missing('which certificate file (under /etc/ssl/certs, /usr/local/share/ca-certificates or /etc/letsencrypt/live)') : steps(step('CertificateExpiry', { path }, `the validity dates of ${path}`));
  }, { also: ['when', 'does', 'the', 'is', 'check', 'show', 'of'] }),
  rule('security.cert-file-expiry', [['expire', 'expires', 'expiry', 'valid until', 'validity', 'expiration']], (c) => {
    const path = takePath(c, CERT_DIRS);
    return path === null ? missing('which certificate file') : steps(step('CertificateExpiry', { path }, `the validity dates of ${path}`));
  }, { needs: (c) => c.tokens.some((t) => CERT_DIRS.some((d) => t.raw.startsWith(`${d}/`))), also: ['when', 'does', 'the', 'is', 'check', 'show', 'of', 'certificate', 'cert'] }),
  rule('security.certs', [['certificates', 'certs', 'ca certificates', 'ca certs', 'letsencrypt', "let's encrypt"]], (c) => {
    const dir = c.takeAny(['letsencrypt', "let's encrypt", 'lets encrypt', '/etc/letsencrypt/live']) !== null ? '/etc/letsencrypt/live' : c.takeAny(['local', '/usr/local/share/ca-certificates', 'custom']) !== null ? '/usr/local/share/ca-certificates' : (c.take('/etc/ssl/certs'), '/etc/ssl/certs');
    return steps(step('ListCertificates', { dir }, `the certificates in ${dir}`));
  }, { also: ['list', 'show', 'which', 'what', 'installed', 'the', 'are', 'trusted', 'ca', 'there'] }),
];
