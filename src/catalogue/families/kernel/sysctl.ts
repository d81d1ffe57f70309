/**
 * Kernel parameters (sysctl): read, list, and set now and persistently. A sysctl key maps
 * to /proc/sys/<key with dots as slashes>; current state is read there, so an unknown key
 * is refused before anything runs.
 */
import { AirlockError } from '../../../protocol/errors.js';
import { action, type Host, unchanged } from '../../action.js';
import { command, fileWrite } from '../../mechanism.js';
import { params, sysctlKey, sysctlValue } from '../../params.js';
import { fixedRead } from '../../lib/fixed-read.js';
import { exact } from '../../rollback.js';

export const sysctlPath = (key: string) => `/proc/sys/${key.split('.').join('/')}`;
export const sysctlDropIn = (key: string) => `/etc/sysctl.d/60-airlock-${key}.conf`;
const DROP_INS = ['/etc/sysctl.d/60-airlock-*.conf'];

/** Keys holding secrets (the kernel makes them 0600): never shown, never set. */
export function isSecretSysctl(key: string): boolean {
  return key === 'net.ipv4.tcp_fastopen_key' || (key.startsWith('net.ipv6.') && key.endsWith('stable_secret'));
}

/**
 * Keys whose value names a program or file the kernel runs or writes as root
 * (modprobe helper, core dump pipe or path, hotplug helper, poweroff command):
 * setting one is code execution as root, so the catalogue refuses them.
 */
export const ROOT_HELPER_SYSCTLS = ['kernel.modprobe', 'kernel.core_pattern', 'kernel.hotplug', 'kernel.poweroff_cmd'];
/** Whole subtrees of that kind: binfmt_misc registers interpreters the kernel runs (as root for setuid files). */
const ROOT_HELPER_PREFIXES = ['fs.binfmt_misc.', 'kernel.usermodehelper.'];
export const isRootHelperSysctl = (key: string) => ROOT_HELPER_SYSCTLS.includes(key) || ROOT_HELPER_PREFIXES.some((p) => key.startsWith(p));

/** Settings that, once set, stay until reboot whatever is written later. */
const ONE_WAY_SYSCTLS = ['kernel.modules_disabled', 'kernel.kexec_load_disabled', 'kernel.yama.ptrace_scope'];

/** Kernel hardening switches: changing one may weaken the host. */
const HARDENING_SYSCTLS = [
  'kernel.randomize_va_space',
  'kernel.kptr_restrict',
  'kernel.dmesg_restrict',
  'kernel.yama.ptrace_scope',
  'kernel.unprivileged_bpf_disabled',
  'kernel.perf_event_paranoid',
  'kernel.sysrq',
  'kernel.unprivileged_userns_clone',
  'user.max_user_namespaces',
  'fs.protected_hardlinks',
  'fs.protected_symlinks',
  'fs.protected_fifos',
  'fs.protected_regular',
  'fs.suid_dumpable',
  'vm.mmap_min_addr',
  'net.core.bpf_jit_harden',
];

// POSIX extended regular expressions (sysctl --pattern) built from constants only.
const dots = (n: number) => (n === 0 ? '' : n === 1 ? '.' : `.{${n}}`);
/** Anything but exactly `s` (anchor with ^...$). */
const ereNotEqual = (s: string) => `(.{0,${s.length - 1}}|.{${s.length + 1},}|${[...s].map((c, i) => `${dots(i)}[^${c}]${dots(s.length - 1 - i)}`).join('|')})`;
/** Anything not ending in `s` (anchor with ^...$). */
const ereNotEndingWith = (s: string) => `(.{0,${s.length - 1}}|${[...s].map((c, i) => `.*[^${c}]${dots(s.length - 1 - i)}`).join('|')})`;
/** Anything not starting with the given character classes, one class per position (anchor with ^...$). */
const ereNotStartingWith = (classes: string[]) => `(.{0,${classes.length - 1}}|${classes.map((c, i) => `${dots(i)}[^${c}].*`).join('|')})`;

/** Every key except the secret ones (isSecretSysctl), for `sysctl -a --pattern`. */
export const LISTABLE_SYSCTLS_ERE = [
  `^${ereNotStartingWith(['n', 'e', 't', '.', 'i', 'p', 'v', '46', '.'])}$`,
  `^net\\.ipv4\\.${ereNotEqual('tcp_fastopen_key')}$`,
  `^net\\.ipv6\\.${ereNotEndingWith('stable_secret')}$`,
].join('|');

/** Kernel output normalised for comparison and for `sysctl -w` (multi-value keys use tabs). */
const normalise = (v: string) => v.trim().replace(/\s+/g, ' ');

export interface SysctlState {
  key: string;
  path: string;
  writable: boolean;
  /** Running value; null when the key is write-only or secret (never read). */
  value: string | null;
}

/** Reads one sysctl from /proc/sys. Unknown keys and key groups are refused; secret keys are not read. */
export async function readSysctl(key: string, host: Host): Promise<SysctlState> {
  const path = sysctlPath(key);
  const st = await host.stat(path);
  if (!st) throw new AirlockError('validation', 'no_such_sysctl', `this kernel has no sysctl ${key}`, 'list them with ListSysctls');
  if (!st.isFile) throw new AirlockError('validation', 'not_a_sysctl', `${key} is a group of sysctls, not one value`, 'list them with ListSysctls');
  let value: string | null = null;
  // Only values anyone on the host may read are shown: the kernel makes the private ones 0600 or 0400.
  if (!isSecretSysctl(key) && st.mode & 0o004) {
    try {
      const text = await host.readFile(path);
      value = text === null ? null : normalise(text);
    } catch {
      value = null; // some keys refuse reads (EACCES, EIO) even to root
    }
  }
  return { key, path, writable: (st.mode & 0o200) !== 0, value };
}

/** Refuses keys the catalogue never touches, before anything is read. */
export function refuseKey(key: string, forWrite: boolean): void {
  if (isSecretSysctl(key)) throw new AirlockError('authorization', 'secret_sysctl', `${key} holds a secret key; Airlock never reads or sets it`);
  if (forWrite && isRootHelperSysctl(key)) {
    throw new AirlockError('authorization', 'protected_sysctl', `${key} names a program or file the kernel runs or writes as root; Airlock never sets it`, 'this needs a person at the console');
  }
}

/** The value /etc/sysctl.conf gives the key, if any: it is applied as 99-sysctl.conf, after Airlock's 60- drop-ins. */
export function sysctlConfValue(text: string | null, key: string): string | null {
  let found: string | null = null;
  for (const raw of (text ?? '').split('\n')) {
    const m = /^\s*-?\s*([^=#;\s]+)\s*=\s*(.*?)\s*$/.exec(raw);
    if (m && m[1]!.replace(/\//g, '.') === key) found = normalise(m[2]!);
  }
  return found;
}

export const getSysctl = action({
  name: 'GetSysctl',
  family: 'kernel',
  description: 'Read the running value of one kernel parameter (sysctl -n).',
  risk: 'low',
  readOnly: true,
  sensitive: false,
  reachesNetwork: false,
  params: params({ key: sysctlKey }),
  files: [],
  example: { key: 'net.ipv4.ip_forward' },
  current: ({ key }, host) => (refuseKey(key, false), readSysctl(key, host)),
  check: ({ key }, cur) => {
    refuseKey(key, false);
    if (cur.value === null) throw new AirlockError('authorization', 'private_sysctl', `${key} is write-only or readable by root only; a low-risk read does not reveal it`);
  },
  preview: ({ key }, cur) => ({ summary: `Read sysctl ${key} (now ${cur.value})`, change: null }),
  mechanism: ({ key }) => [command('sysctl', ['-n', '--', key])],
});

export const setSysctl = action({
  name: 'SetSysctl',
  family: 'kernel',
  description: 'Set a kernel parameter now (sysctl -w) and persist it in /etc/sysctl.d/60-airlock-<key>.conf.',
  risk: 'high',
  // sysctl -w sets the value read back. Read from inside the namespace (sysctl -n), not from /proc/sys: a
  // namespaced key (kernel.msgmax, net.*) has the value of the namespace of the process that reads it.
  // A key that cannot be read has no undo: the preview says so, and such a change cannot be reverted.
  rollback: exact((p, cur) => (cur.value === null ? [] : [{ program: 'sysctl', args: ['-n', '--', p.key] }])),
  readOnly: false,
  runsPrograms: false,
  params: params({ key: sysctlKey, value: sysctlValue }),
  files: DROP_INS,
  example: { key: 'net.ipv4.ip_forward', value: '1' },
  current: async ({ key }, host) => ({
    ...(refuseKey(key, true), await readSysctl(key, host)),
    dropIn: await host.readFile(sysctlDropIn(key)),
    sysctlConf: sysctlConfValue(await host.readFile('/etc/sysctl.conf'), key),
  }),
  check: ({ key, value }, cur) => {
    refuseKey(key, true);
    if (!cur.writable) throw new AirlockError('validation', 'read_only_sysctl', `${key} is read-only`);
    if (normalise(value) === '') throw new AirlockError('validation', 'empty_value', 'the value must not be blank');
    if (cur.value === normalise(value) && cur.dropIn === `${key} = ${normalise(value)}\n`) {
      return unchanged(`${key} is already ${cur.value} and persisted in ${sysctlDropIn(key)}`);
    }
  },
  preview: ({ key, value }, cur) => {
    const v = normalise(value);
    const warnings: string[] = [];
    if (ONE_WAY_SYSCTLS.includes(key)) warnings.push(`${key} may not be changed back until the next reboot once set`);
    if (HARDENING_SYSCTLS.includes(key)) warnings.push(`${key} is a kernel hardening setting: check ${v} does not weaken it`);
    if (cur.value === null) warnings.push(`the current value of ${key} cannot be read, so it cannot be restored automatically`);
    if (cur.sysctlConf !== null && cur.sysctlConf !== v) warnings.push(`/etc/sysctl.conf sets ${key} = ${cur.sysctlConf}, which wins at boot over this drop-in`);
    return {
      summary: `Set ${key} to ${v} (now ${cur.value ?? 'unreadable'}) and keep it across reboots`,
      change: {
        running: { key, from: cur.value, to: v },
        file: sysctlDropIn(key),
        content: `${key} = ${v}`,
        replaces: cur.dropIn === null ? null : cur.dropIn.trim(),
      },
      sideEffects: [key.startsWith('net.') ? 'takes effect at once for the network namespace (normally the whole host)' : 'takes effect at once'],
      warnings,
    };
  },
  mechanism: ({ key, value }, cur) => {
    const v = normalise(value);
    const set = command('sysctl', ['-w', '--', `${key}=${v}`]);
    return [
      fileWrite(sysctlDropIn(key), `${key} = ${v}\n`, { mode: 0o644, parent: { mode: 0o755 } }),
      cur.value === null || cur.value === '' ? set : { ...set, undo: command('sysctl', ['-w', '--', `${key}=${cur.value}`]) },
    ];
  },
});

export const listSysctls = fixedRead({
  name: 'ListSysctls',
  sensitive: false,
  reachesNetwork: false,
  family: 'kernel',
  description: 'List the kernel parameters any user may read, with their running values (sysctl -a run as nobody; root-only and secret keys left out).',
  summary: 'List all kernel parameters (without net.ipv4.tcp_fastopen_key and net.ipv6.*.stable_secret)',
  // As nobody: root-only values (kernel.cad_pid, ...) stay hidden, as GetSysctl hides them.
  steps: [command('sysctl', ['-a', '--pattern', LISTABLE_SYSCTLS_ERE], { unprivileged: true })],
});
