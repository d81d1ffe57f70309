/**
 * SELinux (Fedora, RHEL): its mode now (getenforce, setenforce) and for the next boot (the
 * one SELINUX= line of /etc/selinux/config), and the booleans of the loaded policy
 * (getsebool, setsebool -P). Never disables SELinux: that takes a reboot.
 */
import { z } from 'zod';
import { AirlockError } from '../../../protocol/errors.js';
import { action, RHEL_LIKE, type Host, unchanged } from '../../action.js';
import { command } from '../../mechanism.js';
import { params, token } from '../../params.js';
import { fixedRead } from '../../lib/fixed-read.js';
import { linePatch } from '../../lib/line-patch.js';
import { exact } from '../../rollback.js';

export const SELINUX_CONFIG = '/etc/selinux/config';
export const SELINUX_MODES = ['enforcing', 'permissive'] as const;
export type SelinuxMode = (typeof SELINUX_MODES)[number];
type SelinuxRuntime = 'Enforcing' | 'Permissive' | 'Disabled';

/** An SELinux boolean, as getsebool -a lists them (httpd_can_network_connect). */
export const selinuxBoolean = token(/^[a-z][a-z0-9_]{0,127}$/, 'SELinux boolean (lower-case letters, digits and _)', 128);

export interface SelinuxState {
  /** getenforce's answer; null where the SELinux tools are not installed. */
  runtime: SelinuxRuntime | null;
  /** /etc/selinux/config, or null when absent. */
  config: string | null;
  /** Indexes of its active `SELINUX=` lines (exactly one is what Airlock changes). */
  modeLines: number[];
  /** The mode that file sets for the next boot, when it sets exactly one. */
  configured: string | null;
}

const RUNTIMES: readonly string[] = ['Enforcing', 'Permissive', 'Disabled'];

export async function readSelinux(host: Host): Promise<SelinuxState> {
  let runtime: SelinuxRuntime | null = null;
  try {
    const r = await host.run('getenforce', []);
    const answer = r.stdout.trim();
    if (r.code === 0 && RUNTIMES.includes(answer)) runtime = answer as SelinuxRuntime;
  } catch (e) {
    if (!(e instanceof AirlockError && e.code === 'program_missing')) throw e;
  }
  const config = await host.readFile(SELINUX_CONFIG);
  const lines = config?.split('\n') ?? [];
  const modeLines = lines.flatMap((l, i) => (/^\s*SELINUX\s*=/.test(l) ? [i] : []));
  const configured = modeLines.length === 1 ? (/^\s*SELINUX\s*=\s*"?([a-z]*)"?\s*$/.exec(lines[modeLines[0]!]!)?.[1] ?? null) : null;
  return { runtime, config, modeLines, configured };
}

function refuseNoSelinux(cur: SelinuxState): void {
  if (cur.runtime === null) {
    throw new AirlockError('unsupported_platform', 'selinux_tools_missing', 'getenforce does not answer on this host: the SELinux tools (libselinux-utils, policycoreutils) are missing', 'install libselinux-utils and policycoreutils (InstallPackage)');
  }
  if (cur.runtime === 'Disabled') {
    throw new AirlockError('conflict', 'selinux_disabled', 'SELinux is disabled in the running kernel: turning it on takes a full relabel of the file systems and a reboot', 'a person does that at the console (fixfiles onboot, then reboot)');
  }
}

export const selinuxStatus = action({
  name: 'SelinuxStatus',
  family: 'security',
  description: 'Show whether SELinux is enforcing, permissive or disabled, its policy, and the mode the configuration sets for the next boot (sestatus).',
  risk: 'low',
  readOnly: true,
  sensitive: false,
  reachesNetwork: false,
  platforms: RHEL_LIKE,
  params: params({}),
  files: [],
  example: {},
  current: (_p, host) => readSelinux(host),
  shown: (cur) => ({ runtime: cur.runtime, configured: cur.configured }),
  check: (_p, cur) => {
    if (cur.runtime === null) refuseNoSelinux(cur);
  },
  preview: (_p, cur) => ({ summary: `SELinux status (now ${cur.runtime ?? 'unknown'}, configured ${cur.configured ?? 'unknown'} for the next boot)`, change: null }),
  // sestatus also answers (status disabled) where SELinux is off.
  mechanism: () => [command('sestatus', [])],
});

const setenforce = (mode: 'Enforcing' | 'Permissive') => command('setenforce', [mode]);
const runtimeOf = (mode: SelinuxMode) => (mode === 'enforcing' ? 'Enforcing' : 'Permissive');

export const setSelinuxMode = action({
  name: 'SetSelinuxMode',
  family: 'security',
  description: `Switch SELinux between enforcing and permissive now (setenforce) and for the next boot (the SELINUX= line of ${SELINUX_CONFIG}). Never disables it: that needs a reboot.`,
  risk: 'high',
  // The config from its snapshot; the running mode by setenforce with the mode read, as getenforce reads it.
  rollback: exact(() => [{ program: 'getenforce', args: [] }]),
  readOnly: false,
  runsPrograms: false,
  platforms: RHEL_LIKE,
  params: params({
    mode: z.enum(SELINUX_MODES, 'mode is enforcing or permissive: disabling SELinux takes a reboot (and selinux=0 on the kernel command line on Fedora and RHEL 9), which Airlock does not do'),
  }),
  files: [SELINUX_CONFIG],
  example: { mode: 'enforcing' as const },
  current: (_p, host) => readSelinux(host),
  shown: (cur) => ({ runtime: cur.runtime, configured: cur.configured }),
  check: ({ mode }, cur) => {
    refuseNoSelinux(cur);
    if (cur.config === null) throw new AirlockError('validation', 'no_selinux_config', `${SELINUX_CONFIG} does not exist`, 'a person restores it from the selinux-policy package');
    if (cur.modeLines.length !== 1 || cur.configured === null) {
      throw new AirlockError('conflict', 'unrecognised_config', `${SELINUX_CONFIG} has ${cur.modeLines.length} active SELINUX= lines; Airlock changes exactly one that it can read`, 'a person fixes the file by hand');
    }
    if (cur.runtime === runtimeOf(mode) && cur.configured === mode) return unchanged(`SELinux is already ${mode}, now and for the next boot`);
  },
  preview: ({ mode }, cur) => ({
    summary: `Set SELinux to ${mode} (now ${cur.runtime}, configured ${cur.configured})`,
    change: {
      now: { from: cur.runtime, to: runtimeOf(mode) },
      next_boot: { file: SELINUX_CONFIG, from: `SELINUX=${cur.configured}`, to: `SELINUX=${mode}` },
    },
    sideEffects: [
      mode === 'permissive'
        ? 'SELinux stops denying: what the policy forbids is only logged (AVC messages in the audit log)'
        : 'what the policy forbids is denied from now on: a service that runs with mislabelled files may fail',
    ],
    warnings: cur.configured === 'disabled' ? [`${SELINUX_CONFIG} said disabled (for the next boot): it now says ${mode}, so SELinux stays on after a reboot`] : [],
  }),
  // The file first: if setenforce then fails, the executor restores it.
  mechanism: ({ mode }, cur) => {
    const patch = cur.configured === mode ? null : linePatch(SELINUX_CONFIG, cur.config!, cur.modeLines[0]!, `SELINUX=${mode}`);
    const now = cur.runtime === runtimeOf(mode) ? null : { ...setenforce(runtimeOf(mode)), undo: setenforce(cur.runtime as 'Enforcing' | 'Permissive') };
    return [...(patch ? [patch] : []), ...(now ? [now] : [])];
  },
});

export const listSelinuxBooleans = {
  ...fixedRead({
    name: 'ListSelinuxBooleans',
    sensitive: false,
    reachesNetwork: false,
    family: 'security',
    description: 'List the SELinux booleans of the loaded policy and whether each is on or off (getsebool -a).',
    summary: 'List SELinux booleans (getsebool -a)',
    steps: [command('getsebool', ['-a'])],
  }),
  platforms: RHEL_LIKE,
};

/** `getsebool -- NAME`: "NAME --> on", with "pending: off" when a change waits for a policy commit. */
export function parseGetsebool(name: string, stdout: string): 'on' | 'off' | null {
  const m = /^(\S+) --> (on|off)(?: pending: (?:on|off))?$/m.exec(stdout.trim());
  return m && m[1] === name ? (m[2] as 'on' | 'off') : null;
}

const setsebool = (name: string, value: 'on' | 'off') => command('setsebool', ['-P', '--', name, value], { timeoutMs: 300_000 });

export const setSelinuxBoolean = action({
  name: 'SetSelinuxBoolean',
  family: 'security',
  description: 'Turn an SELinux boolean of the loaded policy on or off, now and across reboots (setsebool -P).',
  risk: 'high',
  // setsebool -P with the value read before. getsebool shows the running value (and a pending one), which -P sets too.
  rollback: exact(({ name }: { name: string }) => [{ program: 'getsebool', args: ['--', name] }]),
  readOnly: false,
  runsPrograms: false,
  platforms: RHEL_LIKE,
  params: params({ name: selinuxBoolean, value: z.boolean() }),
  files: [],
  example: { name: 'httpd_can_network_connect', value: true },
  current: async ({ name }, host) => {
    const selinux = await readSelinux(host);
    const r = selinux.runtime === null || selinux.runtime === 'Disabled' ? null : await host.run('getsebool', ['--', name]);
    return { ...selinux, active: r && r.code === 0 ? parseGetsebool(name, r.stdout) : null };
  },
  shown: (cur) => ({ runtime: cur.runtime, active: cur.active }),
  check: ({ name }, cur) => {
    refuseNoSelinux(cur);
    if (cur.active === null) throw new AirlockError('validation', 'no_such_boolean', `the loaded SELinux policy has no boolean ${name}`, 'ListSelinuxBooleans lists them');
  },
  preview: ({ name, value }, cur) => {
    const to = value ? 'on' : 'off';
    return {
      summary: `Set SELinux boolean ${name} ${to} (now ${cur.active})`,
      change: { boolean: name, value: { from: cur.active, to }, persistent: 'setsebool -P writes it into the policy store, so it survives a reboot' },
      sideEffects: ['the policy is rebuilt and reloaded, which can take a minute'],
      // getsebool shows the running value only: the stored one may differ if someone set it without -P.
      warnings: cur.active === to ? [`${name} is already ${to} in the running policy: this makes sure it stays ${to} after a reboot`] : [],
    };
  },
  mechanism: ({ name, value }, cur) => [{ ...setsebool(name, value ? 'on' : 'off'), undo: setsebool(name, cur.active!) }],
});
