/**
 * Audit (auditd): the kernel's audit status and rules through auditctl, the rules files of
 * /etc/audit/rules.d, and Airlock's own watches (60-airlock-NAME.rules, one
 * `-w PATH -p PERMS -k KEY` each), with audit.rules rebuilt by augenrules.
 *
 * The audit netlink socket needs CAP_AUDIT_CONTROL in the initial namespaces (a container
 * has neither): there the file half still runs, and the preview says plainly that the
 * kernel half does not happen.
 */
import { AirlockError } from '../../../protocol/errors.js';
import { action, type Host, unchanged } from '../../action.js';
import { command, fileDelete, fileScan, fileWrite, type CommandStep, type Step } from '../../mechanism.js';
import { absolutePath, params, token } from '../../params.js';
import { firstSymlink, regularFilesIn, ROOT } from './host-paths.js';
import { clip } from '../../lib/text.js';
import { exact, type StateProbe } from '../../rollback.js';

export const AUDIT_RULES_D = '/etc/audit/rules.d';
export const AUDITD_CONF = '/etc/audit/auditd.conf';
export const AUDIT_RULES = '/etc/audit/audit.rules';
export const auditWatchFile = (name: string) => `${AUDIT_RULES_D}/60-airlock-${name}.rules`;
const RULES_NAME = /^[A-Za-z0-9._@+-]+\.rules$/;

export const auditWatchName = token(/^[a-z0-9][a-z0-9-]{0,39}$/, 'watch name (lower-case letters, digits and -)', 40);
export const auditKey = token(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/, 'audit key (letters, digits, _ and -)', 64);
export const auditPermissions = token(/^[rwxa]{1,4}$/, 'permissions (a subset of r, w, x, a)', 4).refine((s) => new Set(s).size === s.length, 'permissions must not repeat a letter');
/** Pseudo file systems: a watch there is refused by the kernel or floods the log. */
const UNWATCHABLE = ['/proc', '/sys', '/dev', '/run'];
export const watchPath = absolutePath
  .refine((p) => /^\/[A-Za-z0-9._@+,:=/-]*$/.test(p), 'path may hold letters, digits and . _ @ + , : = - / only (audit rules are split on spaces)')
  .refine((p) => !p.includes('/-'), "no part of the path may start with '-'")
  .refine((p) => p.length <= 1024, 'path must be at most 1024 characters')
  .refine((p) => p !== '/' && !UNWATCHABLE.some((d) => p === d || p.startsWith(`${d}/`)), `watching / or anything under ${UNWATCHABLE.join(', ')} is refused`);

/** r, w, x, a in the order auditctl -l prints them. */
export const canonicalPermissions = (p: string) => ['r', 'w', 'x', 'a'].filter((c) => p.includes(c)).join('');
const watchRule = (path: string, perms: string, key: string) => `-w ${path} -p ${canonicalPermissions(perms)} -k ${key}`;

export type KernelAudit =
  | { available: true; enabled: number; status: Record<string, string>; rules: string[] }
  | { available: false; reason: string; why: string };

/** The running kernel's audit state through auditctl, or why it cannot be read here. */
export async function readKernelAudit(host: Host, withRules: boolean): Promise<KernelAudit> {
  const r = await host.run('auditctl', ['-s']);
  if (r.code !== 0) {
    // auditctl's own words, e.g. "Error sending status request (Operation not permitted)".
    const said = `${r.stderr}\n${r.stdout}`.split('\n').map((l) => l.trim()).filter(Boolean);
    const reason = clip(said.slice(0, 3).join('; '), 300) || `exit status ${r.code}`;
    const why = /not permitted/i.test(reason)
      ? 'the Airlock daemon lacks CAP_AUDIT_CONTROL in the initial user namespace, as in a container'
      : /netlink|not in kernel/i.test(reason)
        ? 'the kernel refuses the audit netlink socket: it is open in the initial network namespace only (not in a container), or the kernel lacks audit support'
        : 'auditctl could not talk to the kernel';
    return { available: false, reason, why };
  }
  const status: Record<string, string> = {};
  for (const l of r.stdout.split('\n')) {
    const m = /^(\w+) (.*)$/.exec(l.trim());
    if (m) status[m[1]!] = m[2]!;
  }
  let rules: string[] = [];
  if (withRules) {
    const l = await host.run('auditctl', ['-l']);
    rules = l.code === 0 ? l.stdout.split('\n').map((x) => x.trim()).filter((x) => x !== '' && x !== 'No rules') : [];
  }
  return { available: true, enabled: Number(status.enabled ?? 0), status, rules };
}

/** Whether the running rules can be changed now: not when unreadable, nor when locked (-e 2) until reboot. */
const kernelChangeable = (k: KernelAudit) => k.available && k.enabled !== 2;
function kernelNote(k: KernelAudit): string | null {
  if (!k.available) return `the running kernel's audit rules cannot be read or changed here (auditctl: ${k.reason}; ${k.why})`;
  if (k.enabled === 2) return 'the kernel audit configuration is locked (-e 2) until the next boot';
  return null;
}
const showKernel = (k: KernelAudit) => (k.available ? { available: true, enabled: k.enabled, loaded_rules: k.rules.length } : { available: false, reason: k.reason, why: k.why });

export const auditStatus = action({
  name: 'AuditStatus',
  family: 'security',
  description: `Show the kernel audit status (auditctl -s, where the kernel allows it), auditd.service's state and ${AUDITD_CONF}.`,
  risk: 'low',
  readOnly: true,
  // Sensitive: auditd.conf in full.
  sensitive: true,
  reachesNetwork: false,
  params: params({}),
  files: [AUDITD_CONF],
  example: {},
  current: async (_p, host) => ({ kernel: await readKernelAudit(host, false), conf: (await host.stat(AUDITD_CONF))?.isFile === true }),
  shown: (cur) => ({ kernel: showKernel(cur.kernel), auditd_conf: cur.conf }),
  preview: (_p, cur) => ({
    summary: cur.kernel.available
      ? `Read the kernel audit status (enabled ${cur.kernel.enabled}), auditd.service's state${cur.conf ? ` and ${AUDITD_CONF}` : ''}`
      : `Read auditd.service's state${cur.conf ? ` and ${AUDITD_CONF}` : ''}; the kernel audit status is unavailable here: auditctl -s: ${cur.kernel.reason}`,
    change: null,
    warnings: [...(cur.kernel.available ? [] : [`${kernelNote(cur.kernel)}: the output holds no kernel status`]), ...(cur.conf ? [] : [`${AUDITD_CONF} does not exist`])],
  }),
  mechanism: (_p, cur) => [
    ...(cur.kernel.available ? [command('auditctl', ['-s'])] : []),
    command('systemctl', ['show', '--no-pager', '-p', 'LoadState,ActiveState,SubState,UnitFileState,MainPID', '--', 'auditd.service']),
    ...(cur.conf ? [fileScan(AUDITD_CONF)] : []),
  ],
});

interface RulesDir {
  files: string[];
  skipped: string[];
}

async function readRulesDir(host: Host): Promise<RulesDir> {
  const d = await regularFilesIn(host, AUDIT_RULES_D, RULES_NAME);
  if (d === null) throw new AirlockError('unsupported_platform', 'auditd_missing', `${AUDIT_RULES_D} does not exist: auditd is not installed`, 'install auditd first (InstallPackage)');
  return d;
}

export const listAuditRules = action({
  name: 'ListAuditRules',
  family: 'security',
  description: `Show every rules file in ${AUDIT_RULES_D} (Airlock's are named 60-airlock-NAME.rules) and, where the kernel allows it, the rules loaded now (auditctl -l).`,
  risk: 'low',
  readOnly: true,
  // Sensitive: the audit rules files, in full.
  sensitive: true,
  reachesNetwork: false,
  params: params({}),
  files: [`${AUDIT_RULES_D}/*.rules`],
  example: {},
  current: async (_p, host) => ({ dir: await readRulesDir(host), kernel: await readKernelAudit(host, true) }),
  shown: (cur) => ({ files: cur.dir.files.map((f) => ({ file: `${AUDIT_RULES_D}/${f}`, airlock: f.startsWith('60-airlock-') })), skipped: cur.dir.skipped, kernel: showKernel(cur.kernel) }),
  preview: (_p, cur) => ({
    summary: `Read ${cur.dir.files.length} rules file(s) in ${AUDIT_RULES_D}${cur.kernel.available ? ` and the ${cur.kernel.rules.length} rule(s) loaded in the kernel` : '; the loaded rules are unavailable here'}`,
    change: null,
    warnings: [...(kernelNote(cur.kernel) && !cur.kernel.available ? [kernelNote(cur.kernel)!] : []), ...(cur.dir.skipped.length ? [`not shown (links or unusual names): ${cur.dir.skipped.join(', ')}`] : [])],
  }),
  mechanism: (_p, cur) => [...cur.dir.files.map((f) => fileScan(`${AUDIT_RULES_D}/${f}`)), ...(cur.kernel.available ? [command('auditctl', ['-l'])] : [])],
});

const augenrules = () => command('augenrules', []);
/** Rebuilds audit.rules from rules.d; it only replaces audit.rules at its very end, so a failure leaves it as it was. */
const REBUILD_NOTE = `${AUDIT_RULES} is rebuilt from every file in ${AUDIT_RULES_D} (augenrules), which is what auditd loads at boot`;

/**
 * A rules file written or deleted, then audit.rules rebuilt from rules.d. The rebuild must be
 * undone after the file is restored, and undos run last first: so a check comes first (augenrules
 * --check writes nothing) carrying the rebuild as its undo, and the rebuild after the file is
 * undone by that one. augenrules' own backup (audit.rules.prev) is left as its last run made it.
 */
const rebuiltAround = (file: Step): Step[] => [{ ...command('augenrules', ['--check']), undo: augenrules() }, file, { ...augenrules(), noUndo: 'undone_earlier' }];

/** What a watch changes beyond its rules file: audit.rules, and the kernel's rules where they can be read. */
const watchState = (_p: unknown, cur: { kernel: KernelAudit }): StateProbe[] => [{ file: AUDIT_RULES }, ...(kernelChangeable(cur.kernel) ? [{ program: 'auditctl' as const, args: ['-l'] }] : [])];

interface WatchState {
  dir: RulesDir;
  file: string;
  existing: string | null;
  kernel: KernelAudit;
}

async function readWatch(host: Host, name: string): Promise<WatchState> {
  const file = auditWatchFile(name);
  return { dir: await readRulesDir(host), file, existing: await host.readFile(file), kernel: await readKernelAudit(host, true) };
}

const auditctl = (args: string[]): CommandStep => command('auditctl', args);
const ruleArgs = (flag: '-w' | '-W', path: string, perms: string, key: string) => [flag, path, '-p', canonicalPermissions(perms), '-k', key];

export const addAuditWatch = action({
  name: 'AddAuditWatch',
  family: 'security',
  description: `Audit access to one existing file or directory: writes "-w PATH -p PERMS -k KEY" to ${AUDIT_RULES_D}/60-airlock-NAME.rules, rebuilds audit.rules and, where the kernel allows it, loads the watch now.`,
  risk: 'high',
  // The rules file from its snapshot, audit.rules rebuilt after it (rebuiltAround), the kernel's watch removed by auditctl -W.
  rollback: exact(watchState),
  readOnly: false,
  runsPrograms: false,
  params: params({ name: auditWatchName, path: watchPath, permissions: auditPermissions, key: auditKey }),
  files: [`${AUDIT_RULES_D}/60-airlock-*.rules`],
  example: { name: 'passwd', path: '/etc/passwd', permissions: 'wa', key: 'identity' },
  current: async ({ name, path }, host) => {
    const st = await host.stat(path);
    return { ...(await readWatch(host, name)), target: st && { isDir: st.isDir, isFile: st.isFile }, link: await firstSymlink(host, path) };
  },
  shown: (cur) => ({ file: cur.file, exists: cur.existing !== null, target: cur.target, link: cur.link, kernel: showKernel(cur.kernel) }),
  check: ({ path, permissions, key }, cur) => {
    if (cur.existing !== null) throw new AirlockError('conflict', 'watch_exists', `${cur.file} already exists`, 'choose another name, or RemoveAuditWatch it first');
    if (cur.link) throw new AirlockError('validation', 'symlink_in_path', `${cur.link} is a symbolic link; the kernel watches the path as written, so name the real file`);
    if (!cur.target) throw new AirlockError('validation', 'no_such_path', `${path} does not exist; Airlock watches existing files and directories only`);
    if (cur.kernel.available && cur.kernel.rules.includes(watchRule(path, permissions, key))) {
      throw new AirlockError('conflict', 'already_loaded', `the kernel already has the rule "${watchRule(path, permissions, key)}" (from another rules file)`);
    }
  },
  preview: ({ name, path, permissions, key }, cur) => {
    const rule = watchRule(path, permissions, key);
    const note = kernelNote(cur.kernel);
    return {
      summary: `Audit ${canonicalPermissions(permissions)} access to ${path} under key ${key} (watch ${name})`,
      change: { file: cur.file, rule, loads_now: kernelChangeable(cur.kernel), rebuilds: AUDIT_RULES },
      sideEffects: [REBUILD_NOTE, ...(cur.target?.isDir ? [`${path} is a directory: the watch covers everything below it`] : []), 'matching events are logged by auditd under this key (ausearch -k)'],
      warnings: note ? [`${note}: the watch is only written to ${cur.file} and ${AUDIT_RULES}; it takes effect when auditd next loads its rules (boot, or auditd.service starting)`] : [],
    };
  },
  mechanism: ({ name, path, permissions, key }, cur) => [
    // Loading first is the validation: the kernel refuses a bad rule before anything is written.
    ...(kernelChangeable(cur.kernel) ? [{ ...auditctl(ruleArgs('-w', path, permissions, key)), undo: auditctl(ruleArgs('-W', path, permissions, key)) }] : []),
    ...rebuiltAround(fileWrite(cur.file, `## Written by Airlock (AddAuditWatch ${name})\n${watchRule(path, permissions, key)}\n`, { mode: 0o640, owner: ROOT })),
  ],
});

/**
 * The watch an Airlock rules file holds: exactly one `-w PATH -p PERMS -k KEY` line besides
 * comments, each part valid as AddAuditWatch's parameters are (the file may have been edited).
 */
export function parseWatchFile(text: string): { path: string; perms: string; key: string } | null {
  const rules = text.split('\n').filter((l) => l.trim() !== '' && !l.trim().startsWith('#'));
  const m = rules.length === 1 ? /^-w (\S+) -p (\S+) -k (\S+)$/.exec(rules[0]!.trim()) : null;
  if (!m || !watchPath.safeParse(m[1]).success || !auditPermissions.safeParse(m[2]).success || !auditKey.safeParse(m[3]).success) return null;
  return { path: m[1]!, perms: m[2]!, key: m[3]! };
}

export const removeAuditWatch = action({
  name: 'RemoveAuditWatch',
  family: 'security',
  description: 'Remove an audit watch that AddAuditWatch created: deletes its rules file, rebuilds audit.rules and, where the kernel allows it, unloads the watch now.',
  risk: 'high',
  // As AddAuditWatch: the file from its snapshot, audit.rules rebuilt after it, the watch loaded again by auditctl -w.
  rollback: exact(watchState),
  readOnly: false,
  runsPrograms: false,
  params: params({ name: auditWatchName }),
  files: [`${AUDIT_RULES_D}/60-airlock-*.rules`],
  example: { name: 'passwd' },
  current: ({ name }, host) => readWatch(host, name),
  shown: (cur) => ({ file: cur.file, exists: cur.existing !== null, rule: cur.existing === null ? null : parseWatchFile(cur.existing), kernel: showKernel(cur.kernel) }),
  check: (_p, cur) => {
    if (cur.existing === null) return unchanged(`${cur.file} does not exist`);
    if (!parseWatchFile(cur.existing)) throw new AirlockError('conflict', 'not_an_airlock_watch', `${cur.file} was edited and no longer holds exactly one watch rule; Airlock removes only what it wrote`, 'remove it by hand');
  },
  preview: (_p, cur) => {
    const w = parseWatchFile(cur.existing ?? '');
    const rule = w ? watchRule(w.path, w.perms, w.key) : '';
    const loaded = cur.kernel.available && cur.kernel.rules.includes(rule);
    const note = kernelNote(cur.kernel);
    return {
      summary: `Stop auditing ${w?.path ?? '?'} (watch ${cur.file})`,
      change: { file: cur.file, rule, unloads_now: loaded && kernelChangeable(cur.kernel), rebuilds: AUDIT_RULES },
      sideEffects: [REBUILD_NOTE, 'events already logged stay in the audit log'],
      warnings: [
        ...(note ? [`${note}: the watch is only removed from ${cur.file} and ${AUDIT_RULES}; a loaded copy stays until auditd next loads its rules or the host reboots`] : []),
        ...(cur.kernel.available && !loaded ? ['the kernel does not have this watch loaded now'] : []),
        ...(cur.dir.files.length === 1 ? [`it is the last file in ${AUDIT_RULES_D}: augenrules leaves ${AUDIT_RULES} unchanged when there is nothing to build`] : []),
      ],
    };
  },
  mechanism: (_p, cur) => {
    const w = parseWatchFile(cur.existing ?? '');
    if (!w) return [];
    const loaded = kernelChangeable(cur.kernel) && cur.kernel.available && cur.kernel.rules.includes(watchRule(w.path, w.perms, w.key));
    return [
      ...(loaded ? [{ ...auditctl(ruleArgs('-W', w.path, w.perms, w.key)), undo: auditctl(ruleArgs('-w', w.path, w.perms, w.key)) }] : []),
      ...rebuiltAround(fileDelete(cur.file)),
    ];
  },
});
