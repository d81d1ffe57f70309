/** Rules of the kernel family: sysctl parameters, modules and the blacklist, the boot line, pressure. */
import { missing, rule, step, steps } from '../rule.js';
import { SYSCTL, type Clause } from '../words.js';

/** Kernel parameters people name by what they do. */
const SYSCTL_WORDS: [string, string][] = [
  ['ip forwarding', 'net.ipv4.ip_forward'], ['ipv4 forwarding', 'net.ipv4.ip_forward'], ['packet forwarding', 'net.ipv4.ip_forward'], ['routing', 'net.ipv4.ip_forward'],
  ['ipv6 forwarding', 'net.ipv6.conf.all.forwarding'], ['swappiness', 'vm.swappiness'], ['syn cookies', 'net.ipv4.tcp_syncookies'], ['syncookies', 'net.ipv4.tcp_syncookies'],
];

function sysctlKey(c: Clause): string | null {
  const explicit = c.takeToken((t) => !t.literal && SYSCTL.test(t.low));
  if (explicit !== null) return explicit.toLowerCase();
  for (const [words, key] of SYSCTL_WORDS) if (c.take(words)) return key;
  return null;
}

const MODULE = /^[a-z0-9_-]{1,56}$/;
const MODULE_WORDS: [string, string][] = [['usb storage', 'usb_storage'], ['usb-storage', 'usb_storage'], ['firewire', 'firewire_core'], ['bluetooth', 'bluetooth']];

function moduleName(c: Clause): string | null {
  for (const [words, m] of MODULE_WORDS) if (c.said(words)) return m;
  const m = c.after(['module'], (t) => c.isName(t) && MODULE.test(t.low)) ?? c.before(['module'], (t) => c.isName(t) && MODULE.test(t.low)) ?? c.takeToken((t) => c.isName(t) && MODULE.test(t.low) && !/^\d+$/.test(t.low));
  return m === null ? null : m.toLowerCase();
}

export const kernelRules = [
  rule('kernel.set-sysctl', [['set', 'change', 'enable', 'disable', 'turn on', 'turn off', 'raise', 'lower']], (c) => {
    const on = c.saidAny(['enable', 'turn on']) !== null ? '1' : c.saidAny(['disable', 'turn off']) !== null ? '0' : null;
    const key = sysctlKey(c);
    if (key === null) return missing('which kernel parameter');
    const value = c.takeToken((t) => !t.literal && /^[A-Za-z0-9_.:,/+-]{1,128}$/.test(t.raw) && /\d/.test(t.raw)) ?? on;
    return value === null ? missing(`the value of ${key}`) : steps(step('SetSysctl', { key, value }, `set ${key} to ${value}, now and at boot`));
  }, { needs: (c) => (c.tokens.some((t) => SYSCTL.test(t.low)) || SYSCTL_WORDS.some(([w]) => c.has(w))) && (c.tokens.some((t) => /^[\d-][\w.:,/+-]*$/.test(t.low)) || ['enable', 'disable', 'turn on', 'turn off'].some((w) => c.has(w))), also: ['to', 'kernel', 'parameter', 'sysctl', '=', 'permanently', 'persistently'] }),
  rule('kernel.get-sysctl', [['sysctl', 'kernel parameter', 'value', 'what', 'show', 'is', 'check', 'get']], (c) => {
    const key = sysctlKey(c);
    return key === null ? missing('which kernel parameter') : steps(step('GetSysctl', { key }, `the running value of ${key}`));
  }, { needs: (c) => c.tokens.some((t) => SYSCTL.test(t.low)) || SYSCTL_WORDS.some(([w]) => c.has(w)), also: ['set', 'to', 'of', 'current', 'on', 'enabled'] }),
  rule('kernel.list-sysctls', [['sysctls', 'kernel parameters', 'sysctl settings', 'sysctl -a', 'all sysctl']], () => steps(step('ListSysctls', {}, 'the kernel parameters and their values')), { also: ['list', 'show', 'all', 'the'] }),
  rule('kernel.modules', [['modules', 'lsmod', 'loaded modules', 'kernel modules', 'drivers']], () => steps(step('ListKernelModules', {}, 'the loaded kernel modules')), { also: ['list', 'show', 'which', 'what', 'loaded', 'are', 'kernel'], unless: ['blacklist', 'blacklisted', 'blocked', 'load'] }),
  rule('kernel.blacklist-show', [['blacklist', 'blacklisted', 'blocked modules', 'modprobe.d']], () => steps(step('ListModuleBlacklist', {}, 'the kernel module blacklist')), { also: ['show', 'list', 'which', 'what', 'modules', 'are', 'module', 'kernel', 'the'], unless: ['unblacklist', 'add', 'un-blacklist'], needs: (c) => !c.tokens.some((t) => ['usb', 'usb_storage', 'usb-storage'].includes(t.low)) && ['show', 'list', 'which', 'what'].some((w) => c.has(w)) }),
  rule('kernel.blacklist', [['blacklist', 'block', 'disable', 'prevent', 'forbid', 'stop'], ['module', 'usb storage', 'usb-storage', 'usb_storage', 'driver', 'firewire', 'bluetooth']], (c) => {
    const m = moduleName(c);
    return m === null ? missing('which kernel module') : steps(step('BlacklistModule', { module: m }, `keep the ${m} module from loading`));
  }, { also: ['kernel', 'from', 'loading', 'the'], unless: ['unblacklist', 'un-blacklist'] }),
  rule('kernel.blacklist-word', [['blacklist']], (c) => {
    const m = moduleName(c);
    return m === null ? missing('which kernel module') : steps(step('BlacklistModule', { module: m }, `keep the ${m} module from loading`));
  }, { also: ['kernel', 'module', 'the'] }),
  rule('kernel.unblacklist', [['unblacklist', 'un-blacklist', 'allow module', 'remove from blacklist', 'remove blacklist']], (c) => {
    const m = moduleName(c);
    return m === null ? missing('which kernel module') : steps(step('UnblacklistModule', { module: m }, `let the ${m} module load again`));
  }, { also: ['kernel', 'module', 'the', 'from', 'the blacklist'] }),
  rule('kernel.load', [['load', 'modprobe', 'insmod'], ['module', 'driver', 'modprobe']], (c) => {
    const m = moduleName(c);
    return m === null ? missing('which kernel module') : steps(step('LoadModule', { module: m }, `load the ${m} module until the next reboot`));
  }, { also: ['kernel', 'the'] }),
  rule('kernel.cmdline', [['command line', 'cmdline', 'boot parameters', 'boot options', 'boot with', 'booted with', 'boot line']], () => steps(step('KernelCommandLine', {}, 'the parameters the kernel booted with')), { also: ['kernel', 'show', 'what', 'the', 'booted', 'with'] }),
  rule('kernel.pressure', [['pressure', 'memory pressure', 'cpu pressure', 'io pressure', 'psi', 'stall', 'stalls', 'contention']], () => steps(step('ResourcePressure', {}, 'how long tasks waited for CPU, memory or I/O')), { also: ['cpu', 'memory', 'io', 'i/o', 'show', 'resource', 'is', 'there', 'under'] }),
];
