/**
 * AppArmor (Debian, Ubuntu): the loaded profiles (aa-status) and the mode of one profile
 * of /etc/apparmor.d (aa-complain, aa-enforce from apparmor-utils, then apparmor_parser).
 * Where the LSM is not enabled in the kernel, the profile file still changes and the
 * parser only checks it; the preview says so.
 */
import { z } from 'zod';
import { AirlockError } from '../../../protocol/errors.js';
import { action, type Host, unchanged } from '../../action.js';
import { command } from '../../mechanism.js';
import { params, token } from '../../params.js';
import { clip } from '../../lib/text.js';
import { exact } from '../../rollback.js';

/**
 * Whether the daemon can run `program`: it resolved it to a trusted binary when it started
 * (else running it is refused as program_missing) and `program --help` succeeds.
 */
async function usable(host: Host, program: 'aa-complain' | 'aa-enforce'): Promise<boolean> {
  try {
    return (await host.run(program, ['--help'])).code === 0;
  } catch (e) {
    if (e instanceof AirlockError && e.code === 'program_missing') return false;
    throw e;
  }
}

export const APPARMOR_D = '/etc/apparmor.d';
export const appArmorProfile = token(/^[A-Za-z0-9][A-Za-z0-9._+-]{0,127}$/, `profile (a file name in ${APPARMOR_D})`, 128);

export interface AppArmorKernel {
  enabled: boolean;
  /** What aa-enabled answered ("Yes", "No - not available on this system.", ...). */
  answer: string;
  code: number;
}

/** Whether AppArmor is enabled in the running kernel, by aa-enabled (0 yes; 1, 3, 4 no, with its reason). */
export async function readAppArmor(host: Host): Promise<AppArmorKernel> {
  const r = await host.run('aa-enabled', []);
  return { enabled: r.code === 0, answer: clip((r.stdout.trim() || r.stderr.trim()).split('\n')[0] ?? '', 200), code: r.code };
}

export const appArmorStatus = action({
  name: 'AppArmorStatus',
  family: 'security',
  description: 'Show the AppArmor profiles loaded in the kernel and their modes (aa-status); on a host where AppArmor is not enabled, aa-enabled says so and why.',
  risk: 'low',
  readOnly: true,
  sensitive: false,
  reachesNetwork: false,
  params: params({}),
  files: [],
  example: {},
  current: (_p, host) => readAppArmor(host),
  preview: (_p, cur) => ({
    summary: cur.enabled ? 'Read the loaded AppArmor profiles and their modes (aa-status)' : `AppArmor is not enabled on this host (aa-enabled: ${cur.answer || `exit status ${cur.code}`}); read that answer`,
    change: null,
    warnings: cur.enabled ? [] : ['no AppArmor profile confines anything on this host while AppArmor is not enabled in the kernel'],
  }),
  // aa-status exits 2 when AppArmor is on but no policy is loaded: an answer, not a failure.
  mechanism: (_p, cur) => [cur.enabled ? command('aa-status', [], { okCodes: [0, 2] }) : command('aa-enabled', [], { okCodes: [1, 2, 3, 4] })],
});

export type ProfileMode = 'enforce' | 'complain' | 'mixed';

/** The mode of the profiles a file declares (top-level `profile NAME ... {` or `/path ... {` blocks), or null when it declares none. */
export function profileMode(text: string): ProfileMode | null {
  let depth = 0;
  const complain: boolean[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('#') || line === '') continue;
    const code = line.replace(/\s#.*$/, '');
    if (depth === 0 && code.endsWith('{') && /^(profile\s|\/|@\{|")/.test(code)) {
      const flags = /flags\s*=\s*\(([^)]*)\)/.exec(code)?.[1] ?? '';
      complain.push(flags.split(/[\s,]+/).includes('complain'));
    }
    depth += (code.match(/\{/g) ?? []).length - (code.match(/\}/g) ?? []).length;
    if (depth < 0) depth = 0;
  }
  if (complain.length === 0) return null;
  return complain.every(Boolean) ? 'complain' : complain.some(Boolean) ? 'mixed' : 'enforce';
}

interface ProfileState {
  path: string;
  kind: 'file' | 'missing' | 'other';
  mode: ProfileMode | null;
  disabled: boolean;
  utils: boolean;
  kernel: AppArmorKernel;
}

export const setAppArmorMode = action({
  name: 'SetAppArmorMode',
  family: 'security',
  description: `Put an AppArmor profile of ${APPARMOR_D} in complain or enforce mode (aa-complain/aa-enforce from apparmor-utils), then reload it, or only check it where AppArmor is not enabled.`,
  risk: 'high',
  // The profile edited back by the other tool (which reloads it where AppArmor runs). aa-enforce also deletes a force-complain link: read too.
  rollback: exact(({ profile }: { profile: string }, cur: { path: string }) => [{ file: cur.path }, { file: `${APPARMOR_D}/force-complain/${profile}` }]),
  readOnly: false,
  runsPrograms: false,
  params: params({ profile: appArmorProfile, mode: z.enum(['complain', 'enforce']) }),
  files: [],
  example: { profile: 'usr.sbin.cupsd', mode: 'complain' },
  current: async ({ profile }, host): Promise<ProfileState> => {
    const path = `${APPARMOR_D}/${profile}`;
    await host.trustedPath(path); // aa-complain, aa-enforce and apparmor_parser edit and load it by name
    const st = await host.stat(path);
    const kind = st === null ? 'missing' : st.isFile ? 'file' : 'other';
    const text = kind === 'file' ? await host.readFile(path) : null;
    return {
      path,
      kind,
      mode: text === null ? null : profileMode(text),
      disabled: (await host.stat(`${APPARMOR_D}/disable/${profile}`)) !== null,
      utils: (await usable(host, 'aa-complain')) && (await usable(host, 'aa-enforce')),
      kernel: await readAppArmor(host),
    };
  },
  check: ({ profile, mode }, cur) => {
    if (!cur.utils) {
      throw new AirlockError('unsupported_platform', 'apparmor_utils_missing', 'aa-complain and aa-enforce are not installed on this host (they come with apparmor-utils)', 'install apparmor-utils (InstallPackage), then preview again');
    }
    if (cur.kind === 'missing') throw new AirlockError('validation', 'no_such_profile', `there is no ${cur.path}`, 'AppArmorStatus lists the loaded profiles');
    if (cur.kind === 'other') throw new AirlockError('validation', 'not_a_profile', `${cur.path} is not a regular file (a directory or a link)`);
    if (cur.mode === null) throw new AirlockError('validation', 'not_a_profile', `${cur.path} declares no profile (it may be an abstraction or a tunable)`);
    if (cur.disabled) throw new AirlockError('conflict', 'profile_disabled', `${profile} is disabled (${APPARMOR_D}/disable/${profile} exists), so no mode of it is loaded`, 'a person enables it by hand');
    if (cur.mode === mode) return unchanged(`${profile} is already in ${mode} mode`);
  },
  preview: ({ profile, mode }, cur) => ({
    summary: `Put AppArmor profile ${profile} in ${mode} mode (now ${cur.mode ?? 'unknown'})${cur.kernel.enabled ? ' and reload it' : ''}`,
    change: {
      profile: cur.path,
      mode: { from: cur.mode, to: mode },
      edits: mode === 'complain' ? 'adds complain to the flags=(...) of its profile lines' : 'removes complain from the flags=(...) of its profile lines',
      then: cur.kernel.enabled ? `apparmor_parser -r reloads ${cur.path} into the kernel` : `apparmor_parser -Q only checks ${cur.path}: AppArmor is not enabled in this kernel`,
    },
    sideEffects: [
      mode === 'complain'
        ? 'the programs it confines are no longer blocked: what the profile forbids is only logged'
        : 'what the profile does not allow is blocked from now on: a program it does not fully describe may fail',
    ],
    warnings: cur.kernel.enabled ? [] : [`AppArmor is not enabled on this host (aa-enabled: ${cur.kernel.answer}): only the profile file changes; the mode applies once AppArmor is enabled and loads it`],
  }),
  mechanism: ({ mode }, cur) => {
    const set = (m: string, reload: boolean) => command(m === 'complain' ? 'aa-complain' : 'aa-enforce', [...(reload ? [] : ['--no-reload']), '--', cur.path], { paths: [cur.path] });
    return [
      // Its undo edits the file back and, where AppArmor runs, reloads it: that also undoes the load below.
      { ...set(mode, false), undo: set(mode === 'complain' ? 'enforce' : 'complain', cur.kernel.enabled) },
      // The kernel parses and loads the edited profile; where AppArmor is off, the parser still checks it (-Q: skip the kernel load, -K: no cache).
      command('apparmor_parser', cur.kernel.enabled ? ['-r', '--', cur.path] : ['-Q', '-K', '--', cur.path], { paths: [cur.path], noUndo: cur.kernel.enabled ? 'undone_earlier' : 'changes_nothing' }),
    ];
  },
});
