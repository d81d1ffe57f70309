/**
 * Airlock's drop-in /etc/ssh/sshd_config.d/60-airlock.conf: its lines after a change,
 * where else an option is set, the steps that write it, check it with `sshd -t` and reload
 * ssh.service, and what a preview shows of it.
 */
import { command, fileDelete, fileWrite, type CommandStep, type Step } from '../../mechanism.js';
import { describeState } from '../../lib/systemd.js';
import { parseDirective, SSHD_CONFIG, SSHD_DROPIN, type Directive } from './sshd-config.js';
import { OPTION_NAMES, optionLine, type OptionValue, type SshdOption } from './sshd-options.js';
import { SSH_UNIT, type SshdState } from './sshd-state.js';

/** Drop-in lines other than those of `option`. */
export const otherLines = (cur: SshdState, option: SshdOption) => cur.dropin.lines.filter((l) => parseDirective(l)!.keyword.toLowerCase() !== option.toLowerCase());
export const dropinLineOf = (cur: SshdState, option: SshdOption) => cur.dropin.lines.find((l) => parseDirective(l)!.keyword.toLowerCase() === option.toLowerCase()) ?? null;

/** The drop-in after SetSshdOption: the option's line replaced in place, or added at the end. */
export function afterSet(cur: SshdState, option: SshdOption, value: OptionValue): { old: string | null; line: string; lines: string[] } {
  const old = dropinLineOf(cur, option);
  const line = optionLine(option, value);
  return { old, line, lines: old ? cur.dropin.lines.map((l) => (l === old ? line : l)) : [...cur.dropin.lines, line] };
}

/** The drop-in's text: a header, then one line per option. */
export function dropinText(lines: string[]): string {
  return `# Managed by Airlock (SetSshdOption, ResetSshdOption): one line per option.\n# sshd reads this through the Include at the top of ${SSHD_CONFIG} and keeps the first value it reads.\n${lines.join('\n')}\n`;
}

/** Directives of `option` read before and after the drop-in (the drop-in's own lines are not among them). */
export function sources(cur: SshdState, option: SshdOption): { before: Directive[]; after: Directive[] } {
  const at = cur.view.dropinAt ?? cur.view.directives.length;
  const key = option.toLowerCase();
  return { before: cur.view.directives.slice(0, at).filter((d) => d.key === key), after: cur.view.directives.slice(at).filter((d) => d.key === key) };
}
export const where = (d: Directive) => `\`${d.text}\` (${d.file}:${d.line})`;

/** The reload step when ssh.service runs, and what the preview says about it. */
export function reloadPlan(cur: SshdState): { steps: CommandStep[]; text: string } {
  const u = cur.unit;
  if (u && u.load === 'loaded' && u.active === 'active' && u.canReload) {
    return { steps: [command('systemctl', ['reload', '--', SSH_UNIT])], text: `then reloads ${SSH_UNIT} (running) so new connections use it` };
  }
  // The state words only (no PID, no start time): this text is part of what execution compares.
  const state = u ? [u.load === 'loaded' ? '' : u.load, u.active, u.sub === u.active ? '' : u.sub].filter(Boolean).join(', ') : 'its state is unknown';
  return { steps: [], text: `${SSH_UNIT} is not running (${state}), so nothing is reloaded: sshd reads the setting when it next starts` };
}

/**
 * What the preview shows of the state: the drop-in, the value in force of each option
 * Airlock manages, the lines elsewhere that set them, and ssh.service. Not every line of
 * every included file, and nothing about the approvers' key files.
 */
export const showSshd = (cur: SshdState) => ({
  dropin: { path: SSHD_DROPIN, exists: cur.dropin.exists, lines: cur.dropin.lines },
  in_force: Object.fromEntries(OPTION_NAMES.map((o) => [o, cur.effective?.get(o.toLowerCase()) ?? null])),
  set_elsewhere: cur.view.directives.filter((d) => OPTION_NAMES.some((o) => o.toLowerCase() === d.key)).map(where),
  unit: cur.unit ? describeState(cur.unit) : null,
});

/**
 * The drop-in written (or deleted), checked, and ssh.service reloaded when it runs. With a reload,
 * a first `sshd -t` (of the configuration as it is, which the undo's reload will read again)
 * carries the rollback's reload: undos run last first, so the drop-in is restored before the
 * running server re-reads it, by an automatic rollback and by a revert alike.
 */
export function sshdSteps(cur: SshdState, lines: string[]): Step[] {
  const write = lines.length
    ? fileWrite(SSHD_DROPIN, dropinText(lines), { mode: 0o644, owner: { uid: 0, gid: 0 }, parent: { mode: 0o755, owner: { uid: 0, gid: 0 } } })
    : fileDelete(SSHD_DROPIN);
  const reload = reloadPlan(cur).steps;
  return [
    ...reload.map((r) => command('sshd', ['-t'], { undo: r })),
    write,
    // sshd -t reads the whole configuration, the new drop-in included; failing, it fails the job and the file is restored.
    command('sshd', ['-t'], { noUndo: 'changes_nothing' }),
    ...reload.map((r): Step => ({ ...r, noUndo: 'undone_earlier' })),
  ];
}
