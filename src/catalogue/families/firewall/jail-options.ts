/**
 * SetJailOption: a fixed set of jail options in the drop-in /etc/fail2ban/jail.d/60-airlock.local,
 * checked with `fail2ban-client --test` before the jail (or the whole configuration) is reloaded.
 */
import { z } from 'zod';
import { AirlockError } from '../../../protocol/errors.js';
import { action, ALL_PLATFORMS, type Host, unchanged } from '../../action.js';
import { listDirectory } from '../../lib/host-files.js';
import { command, fileWrite } from '../../mechanism.js';
import { params } from '../../params.js';
import { readFail2ban, refuseFail2banDown, type Fail2banState } from './fail2ban.js';
import { duration, durationSeconds, jailName } from './params.js';
import { exact, type StateProbe } from '../../rollback.js';

const JAIL_DIR = '/etc/fail2ban/jail.d';
export const JAIL_DROPIN = `${JAIL_DIR}/60-airlock.local`;
const JAIL_SOURCES = ['/etc/fail2ban/jail.conf', '/etc/fail2ban/jail.local'];

/** Jail sections of an INI text, options in order; null when a line is not `[section]`, `key = value`, blank or a comment. */
export function parseJailIni(text: string): Map<string, Map<string, string>> | null {
  const out = new Map<string, Map<string, string>>();
  let section: Map<string, string> | null = null;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const head = /^\[([^\]]+)\]$/.exec(line);
    if (head) {
      section = out.get(head[1]!) ?? new Map();
      out.set(head[1]!, section);
      continue;
    }
    const kv = /^([A-Za-z0-9_.]+)\s*[=:]\s*(.*)$/.exec(line);
    if (!kv || !section || /^\s/.test(raw)) return null;
    section.set(kv[1]!, kv[2]!);
  }
  return out;
}

const JAIL_SECTIONS_NOT_JAILS = ['DEFAULT', 'INCLUDES', 'Definition', 'Init'];
const jailSections = (text: string | null) => [...text?.matchAll(/^\[([^\]]+)\]\s*$/gm) ?? []].map((m) => m[1]!).filter((s) => !JAIL_SECTIONS_NOT_JAILS.includes(s));

/** jail.conf, jail.local and the jail.d files fail2ban reads (*.conf, *.local). */
async function jailFiles(host: Host): Promise<string[]> {
  const names = ((await listDirectory(host, JAIL_DIR)) ?? []).filter((n) => /^[A-Za-z0-9_.-]+\.(conf|local)$/.test(n));
  return [...JAIL_SOURCES, ...names.map((n) => `${JAIL_DIR}/${n}`)];
}

export function renderJailDropin(d: Map<string, Map<string, string>>): string {
  const lines = [
    '# Managed by Airlock (SetJailOption): jail options set through Airlock.',
    '# Read after jail.conf, jail.local and the other jail.d files, so these values win.',
  ];
  for (const [jail, opts] of d) {
    if (opts.size === 0) continue;
    lines.push('', `[${jail}]`, ...[...opts].map(([k, v]) => `${k} = ${v}`));
  }
  return lines.join('\n') + '\n';
}

interface JailOptionState extends Fail2banState {
  dropin: Map<string, Map<string, string>> | null;
  dropinExists: boolean;
  /** Jails any config file defines. */
  configured: string[];
  /** The running jail's value of the option, as fail2ban-client get reports it. */
  live: string | null;
}

const jailOptionParams = z.discriminatedUnion('option', [
  params({ jail: jailName, option: z.literal('bantime'), value: duration }),
  params({ jail: jailName, option: z.literal('findtime'), value: duration }),
  params({ jail: jailName, option: z.literal('maxretry'), value: z.number().int().min(1).max(100) }),
  params({ jail: jailName, option: z.literal('enabled'), value: z.boolean() }),
]);
type JailOption = z.infer<typeof jailOptionParams>;

const optionValue = (p: JailOption) => String(p.value);
/** A jail that runs and keeps running reloads alone; enabling, disabling or a stopped jail reloads the whole configuration. */
const reloadsAll = (p: JailOption, cur: JailOptionState) => p.option === 'enabled' || !cur.jails.includes(p.jail);

export const setJailOption = action({
  name: 'SetJailOption',
  family: 'firewall',
  // fail2ban is the same on Fedora and RHEL (EPEL): same client, same jail.d.
  platforms: ALL_PLATFORMS,
  description: `Set bantime, findtime, maxretry or enabled for one fail2ban jail in ${JAIL_DROPIN}, check the configuration with fail2ban-client --test, and reload.`,
  risk: 'high',
  // The drop-in restored, then the same reload: the running jails and the option read as before.
  rollback: exact((p) => [{ program: 'fail2ban-client', args: ['--', 'status'] }, ...(p.option === 'enabled' ? [] : [{ program: 'fail2ban-client', args: ['--', 'get', p.jail, p.option] } satisfies StateProbe])]),
  readOnly: false,
  runsPrograms: false,
  params: jailOptionParams,
  files: [JAIL_DROPIN],
  example: { jail: 'sshd', option: 'maxretry', value: 3 },
  current: async (p, host): Promise<JailOptionState> => {
    const f2b = await readFail2ban(host);
    const text = await host.readFile(JAIL_DROPIN);
    const dropin = text === null ? new Map<string, Map<string, string>>() : parseJailIni(text);
    const configured = new Set([...f2b.jails, ...(dropin ? dropin.keys() : [])]);
    for (const f of await jailFiles(host)) for (const j of jailSections(await host.readFile(f))) configured.add(j);
    let live: string | null = null;
    if (p.option !== 'enabled' && f2b.jails.includes(p.jail)) {
      const r = await host.run('fail2ban-client', ['--', 'get', p.jail, p.option]);
      live = r.code === 0 ? r.stdout.trim() : null;
    }
    return { ...f2b, dropin, dropinExists: text !== null, configured: [...configured], live };
  },
  shown: (cur) => ({ running: cur.running, jails: cur.jails, dropin: cur.dropin ? Object.fromEntries([...cur.dropin].map(([j, o]) => [j, Object.fromEntries(o)])) : 'unreadable', live: cur.live }),
  check: (p, cur) => {
    refuseFail2banDown(cur);
    if (!cur.configured.includes(p.jail)) {
      throw new AirlockError('validation', 'no_such_jail', `no fail2ban configuration file defines jail ${p.jail}`, `jails come from ${JAIL_SOURCES.join(', ')} and ${JAIL_DIR}; Fail2banStatus lists the running ones`);
    }
    if (!cur.dropin) throw new AirlockError('conflict', 'unrecognised_dropin', `${JAIL_DROPIN} holds lines Airlock did not write`, 'a person fixes or removes it by hand');
    if (cur.dropin.get(p.jail)?.get(p.option) === optionValue(p)) return unchanged(`${JAIL_DROPIN} already sets ${p.option} = ${optionValue(p)} for jail ${p.jail}`);
    if (p.option === 'enabled' && p.value === cur.jails.includes(p.jail)) {
      return unchanged(`jail ${p.jail} is ${p.value ? 'already running' : 'not running'}`);
    }
  },
  preview: (p, cur) => {
    const from = cur.dropin?.get(p.jail)?.get(p.option) ?? cur.live ?? (p.option === 'enabled' ? String(cur.jails.includes(p.jail)) : 'the default');
    const warnings: string[] = [];
    if (p.option === 'enabled' && !p.value) warnings.push(`jail ${p.jail} stops: its bans are lifted and it protects nothing until enabled again`);
    if (p.option === 'bantime' && durationSeconds(p.value) < 60) warnings.push('a ban shorter than a minute barely slows an attacker');
    if (p.option === 'maxretry' && p.value === 1) warnings.push('one failure bans: a mistyped password locks a person out for the bantime');
    return {
      summary: `Set ${p.option} = ${optionValue(p)} for fail2ban jail ${p.jail}`,
      change: {
        file: JAIL_DROPIN,
        creates_file: !cur.dropinExists,
        jail: p.jail,
        option: p.option,
        value: { from, to: optionValue(p) },
        checks: 'fail2ban-client --test (the file is restored when it fails)',
        reloads: reloadsAll(p, cur) ? 'the whole fail2ban configuration (fail2ban-client reload)' : `jail ${p.jail} (fail2ban-client reload ${p.jail})`,
      },
      sideEffects: ['bans in force stay in force'],
      warnings,
    };
  },
  mechanism: (p, cur) => {
    const next = new Map([...(cur.dropin ?? [])].map(([j, o]) => [j, new Map(o)]));
    const opts = next.get(p.jail) ?? new Map<string, string>();
    opts.set(p.option, optionValue(p));
    next.set(p.jail, opts);
    const reload = command('fail2ban-client', reloadsAll(p, cur) ? ['--', 'reload'] : ['--', 'reload', p.jail]);
    // The first step (a read of the running jails) carries the reload's undo: undos run last first, so it reloads the drop-in once restored.
    return [
      command('fail2ban-client', ['--', 'status'], { undo: reload }),
      fileWrite(JAIL_DROPIN, renderJailDropin(next), { mode: 0o644 }),
      command('fail2ban-client', ['--test'], { noUndo: 'changes_nothing' }),
      { ...reload, noUndo: 'undone_earlier' },
    ];
  },
});
