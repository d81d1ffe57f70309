/**
 * ssh, server side: sshd's effective configuration (`sshd -T`), and a fixed list of
 * options set in Airlock's own drop-in /etc/ssh/sshd_config.d/60-airlock.conf, one line
 * per option. Every change is checked with `sshd -t` before ssh.service reloads (a failure
 * restores the drop-in). Debian's sshd_config includes sshd_config.d/*.conf at its top and
 * sshd keeps the FIRST value it reads of most options, so a setting read before the
 * drop-in (an earlier drop-in such as 50-cloud-init.conf) would make it ineffective: the
 * include chain is read the way sshd reads it (./sshd-config.ts), and such a change is
 * refused. AllowUsers and AllowGroups are different: sshd adds up every line of them.
 */
import { AirlockError } from '../../../protocol/errors.js';
import { action, unchanged } from '../../action.js';
import { command } from '../../mechanism.js';
import { params } from '../../params.js';
import { fixedRead } from '../../lib/fixed-read.js';
import { afterSet, dropinLineOf, otherLines, reloadPlan, showSshd, sources, sshdSteps, where } from './drop-in.js';
import { SSHD_DROPIN } from './sshd-config.js';
import { effectiveWords, isList, optionLine, optionValue, sshdOption, valueProblem, type SshdOption } from './sshd-options.js';
import { readSshd, refuseUnusable, SSH_UNIT } from './sshd-state.js';
import { lockoutWarnings, optionWarnings } from './sshd-warnings.js';
import { exact, unitState } from '../../rollback.js';

/**
 * The drop-in is probed as a file of the steps; ssh.service's enablement and activity say the
 * server still runs as it did once the undo's reload has made it read the drop-in restored.
 */
const sshdRollback = exact(() => unitState(SSH_UNIT));

export const showSshdConfig = fixedRead({
  name: 'ShowSshdConfig',
  // Sensitive: sshd's whole effective configuration (who may log in, how, and which commands it runs).
  sensitive: true,
  reachesNetwork: false,
  family: 'ssh',
  description: "Show the SSH server's effective configuration (sshd -T: every option with the value in force; no key material).",
  summary: 'Show the effective sshd configuration',
  steps: [command('sshd', ['-T'])],
});

const setParams = params({ option: sshdOption, value: optionValue }).superRefine((p, ctx) => {
  const why = valueProblem(p.option, p.value);
  if (why) ctx.addIssue({ code: 'custom', message: why, path: ['value'] });
});

export const setSshdOption = action({
  name: 'SetSshdOption',
  family: 'ssh',
  description: `Set one SSH server option from a fixed list in Airlock's drop-in ${SSHD_DROPIN}, check it with sshd -t and reload ssh.service.`,
  risk: 'high',
  rollback: sshdRollback,
  readOnly: false,
  runsPrograms: false,
  params: setParams,
  files: [SSHD_DROPIN],
  example: { option: 'PasswordAuthentication', value: 'no' },
  current: (_p, host) => readSshd(host),
  shown: showSshd,
  check: ({ option, value }, cur) => {
    refuseUnusable(cur);
    if (dropinLineOf(cur, option) === optionLine(option, value)) return unchanged(`${SSHD_DROPIN} already sets \`${optionLine(option, value)}\``);
    const { before } = sources(cur, option);
    if (!isList(option) && before.length > 0) {
      throw new AirlockError(
        'conflict',
        'overridden',
        `${where(before[0]!)} is read before ${SSHD_DROPIN} and sshd keeps the first value it reads, so Airlock's setting would have no effect`,
        `a person removes or changes that line; ShowSshdConfig shows the value in force`,
      );
    }
  },
  preview: ({ option, value }, cur) => {
    const { old, line, lines } = afterSet(cur, option, value);
    const { before, after } = sources(cur, option);
    const now = cur.effective?.get(option.toLowerCase()) ?? [];
    return {
      summary: `Set sshd ${line} (in force now: ${now.join(', ') || 'nothing'})`,
      change: {
        file: SSHD_DROPIN,
        line,
        replaces: old,
        effective: {
          from: now,
          to: isList(option) ? [...new Set([...before.flatMap((d) => d.args), ...effectiveWords(option, value), ...after.flatMap((d) => d.args)])] : effectiveWords(option, value),
        },
        text: `${old ? `replaces \`${old}\` with` : 'adds'} \`${line}\` in ${SSHD_DROPIN}, checks the whole configuration with sshd -t (a failure restores the file), ${reloadPlan(cur).text}`,
      },
      sideEffects: [
        'open SSH sessions keep the settings they started with; new connections get the new one',
        ...(isList(option) && before.length + after.length ? [`sshd adds up every ${option} line: these stay in force too: ${[...before, ...after].map(where).join(', ')}`] : []),
        ...(!isList(option) && after.length ? [`it takes precedence over ${after.map(where).join(', ')}, read later`] : []),
      ],
      warnings: [...optionWarnings(option, value, cur, lines), ...(cur.view.unresolved.length ? [`could not follow Include ${cur.view.unresolved.join(', ')}: ShowSshdConfig shows the value in force afterwards`] : [])],
    };
  },
  mechanism: ({ option, value }, cur) => sshdSteps(cur, afterSet(cur, option, value).lines),
});

export const resetSshdOption = action({
  name: 'ResetSshdOption',
  family: 'ssh',
  description: `Remove one option from Airlock's drop-in ${SSHD_DROPIN} (deleting the file when it empties), check with sshd -t and reload ssh.service.`,
  risk: 'high',
  rollback: sshdRollback,
  readOnly: false,
  runsPrograms: false,
  params: params({ option: sshdOption }),
  files: [SSHD_DROPIN],
  example: { option: 'PasswordAuthentication' as SshdOption },
  current: (_p, host) => readSshd(host),
  shown: showSshd,
  check: ({ option }, cur) => {
    refuseUnusable(cur);
    if (dropinLineOf(cur, option) === null) return unchanged(`${SSHD_DROPIN} does not set ${option}`);
  },
  preview: ({ option }, cur) => {
    const old = dropinLineOf(cur, option)!;
    const lines = otherLines(cur, option);
    const { before, after } = sources(cur, option);
    const next = isList(option) ? [...before, ...after] : [...before, ...after].slice(0, 1);
    return {
      summary: `Remove sshd ${option} from Airlock's drop-in`,
      change: {
        file: SSHD_DROPIN,
        removes: old,
        deletes_file: lines.length === 0,
        falls_back_to: next.length ? next.map(where) : `sshd's built-in default for ${option}`,
        text: `${lines.length ? `removes \`${old}\` from` : 'deletes'} ${SSHD_DROPIN}, checks the whole configuration with sshd -t (a failure restores the file), ${reloadPlan(cur).text}`,
      },
      sideEffects: ['open SSH sessions keep the settings they started with; new connections get the fallback'],
      warnings: lockoutWarnings(cur, lines),
    };
  },
  mechanism: ({ option }, cur) => sshdSteps(cur, otherLines(cur, option)),
});
