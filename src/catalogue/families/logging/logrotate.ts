/**
 * logrotate policies (family 'logging'): the files in /etc/logrotate.d listed and shown,
 * and Airlock-owned policies /etc/logrotate.d/airlock-NAME written (checked with
 * `logrotate -d` before the job counts as done; a failed check restores the file),
 * removed and run now.
 *
 * logrotate, run as root every day, copies and truncates each log by name: a log path
 * passes the trusted-path rule (lib/trusted-path.ts) when its policy is written and again
 * before RunLogrotate, so no directory on the way to it can be swapped for a link (which
 * would make copytruncate empty /etc/shadow).
 */
import { posix } from 'node:path';
import { z } from 'zod';
import { AirlockError } from '../../../protocol/errors.js';
import { action, type Host, unchanged } from '../../action.js';
import { command, fileDelete, fileScan, fileWrite } from '../../mechanism.js';
import { params } from '../../params.js';
import { fixedRead } from '../../lib/fixed-read.js';
import { listDirectory } from '../../lib/host-files.js';
import { LOGROTATE_CONF, LOGROTATE_DIR, logrotateConfigName, logrotateEntries, logrotatePolicy, logrotateSize, overlaps, policyFile, policyName, rotatedLogPath } from './logrotate-config.js';
import { bytes } from './quantities.js';
import { exact, noRollback } from '../../rollback.js';

interface PolicyState {
  file: string;
  /** The policy file as it is now, or null when absent. */
  text: string | null;
}

async function readPolicy(host: Host, name: string): Promise<PolicyState> {
  const file = policyFile(name);
  return { file, text: await host.readFile(file) };
}

function refuseNoPolicy(cur: PolicyState): void {
  if (cur.text === null) throw new AirlockError('validation', 'no_such_policy', `there is no ${cur.file}`, 'ListLogrotateConfigs lists the policies; SetLogrotatePolicy writes one');
}

interface SetPolicyState extends PolicyState {
  /** Other configurations (logrotate.conf and the rest of logrotate.d) that name an overlapping log. */
  clashes: Array<{ file: string; pattern: string }>;
  /** The directory holding the log(s). */
  parent: { path: string; exists: boolean; isDir: boolean; uid: number; gid: number; mode: number };
  /** For a single file: what is at the path now. */
  target: 'absent' | 'file' | 'symlink' | 'other';
  /** Whether `logrotate -d /etc/logrotate.conf` passes before the change: then the whole configuration is checked after it. */
  configOk: boolean;
}

async function readSetPolicy(host: Host, name: string, path: string): Promise<SetPolicyState> {
  // Every directory on the way to the log (and the log's own, for DIR/*.log) must be root's alone.
  await host.trustedPath(path);
  const own = await readPolicy(host, name);
  const clashes: SetPolicyState['clashes'] = [];
  const others = [LOGROTATE_CONF, ...((await listDirectory(host, LOGROTATE_DIR)) ?? []).filter((n) => logrotateConfigName.safeParse(n).success).map((n) => `${LOGROTATE_DIR}/${n}`)];
  for (const file of others.filter((f) => f !== own.file)) {
    const text = await host.readFile(file).catch(() => null);
    for (const pattern of logrotateEntries(text ?? '')) if (overlaps(path, pattern)) clashes.push({ file, pattern });
  }
  const dir = posix.dirname(path);
  const d = await host.stat(dir);
  const t = path.endsWith('/*.log') ? null : await host.stat(path);
  const baseline = await host.run('logrotate', ['-d', '--', LOGROTATE_CONF]);
  return {
    ...own,
    clashes,
    parent: { path: dir, exists: d !== null, isDir: d?.isDir === true, uid: d?.uid ?? 0, gid: d?.gid ?? 0, mode: d?.mode ?? 0 },
    target: t === null ? 'absent' : t.isSymlink ? 'symlink' : t.isFile ? 'file' : 'other',
    configOk: baseline.code === 0,
  };
}

export const listLogrotateConfigs = fixedRead({
  name: 'ListLogrotateConfigs',
  sensitive: false,
  reachesNetwork: false,
  family: 'logging',
  description: 'List the logrotate configuration files in /etc/logrotate.d (airlock-* ones are Airlock policies).',
  summary: 'List the files in /etc/logrotate.d',
  steps: [command('ls', ['-l', '--', LOGROTATE_DIR])],
});

export const showLogrotateConfig = action({
  name: 'ShowLogrotateConfig',
  family: 'logging',
  description: 'Show one logrotate configuration file of /etc/logrotate.d.',
  // Low: these files say which logs rotate how; scripts in them run commands but seldom hold secrets.
  risk: 'low',
  readOnly: true,
  // Sensitive: a logrotate file in full: its scripts may carry credentials.
  sensitive: true,
  reachesNetwork: false,
  params: params({ name: logrotateConfigName }),
  files: [`${LOGROTATE_DIR}/*`],
  example: { name: 'apt' },
  current: async ({ name }, host) => {
    const st = await host.stat(`${LOGROTATE_DIR}/${name}`);
    return { path: `${LOGROTATE_DIR}/${name}`, kind: st === null ? 'absent' : st.isSymlink ? 'symlink' : st.isFile ? 'file' : 'other' };
  },
  check: (_p, cur) => {
    if (cur.kind === 'absent') throw new AirlockError('validation', 'not_found', `there is no ${cur.path}`, 'ListLogrotateConfigs lists the files');
    if (cur.kind !== 'file') throw new AirlockError('conflict', 'not_a_file', `${cur.path} is a ${cur.kind === 'symlink' ? 'symbolic link' : 'directory or special file'}, not a configuration file Airlock reads`);
  },
  preview: (_p, cur) => ({ summary: `Read ${cur.path}`, change: null }),
  mechanism: (_p, cur) => [fileScan(cur.path)],
});

const FREQUENCIES = ['daily', 'weekly', 'monthly'] as const;

export const setLogrotatePolicy = action({
  name: 'SetLogrotatePolicy',
  family: 'logging',
  description: 'Write (or replace) the logrotate policy /etc/logrotate.d/airlock-NAME for one log under /var/log, then check the whole logrotate configuration with logrotate -d.',
  risk: 'medium',
  rollback: exact(),
  readOnly: false,
  runsPrograms: false,
  params: params({
    name: policyName,
    path: rotatedLogPath,
    rotate: z.number().int().min(1).max(365),
    frequency: z.enum(FREQUENCIES),
    compress: z.boolean(),
    maxsize: logrotateSize.optional(),
  }),
  files: [`${LOGROTATE_DIR}/airlock-*`],
  example: { name: 'myapp', path: '/var/log/myapp/*.log', rotate: 14, frequency: 'daily', compress: true, maxsize: '100M' },
  current: ({ name, path }, host) => readSetPolicy(host, name, path),
  shown: (cur) => ({ file: cur.file, exists: cur.text !== null, clashes: cur.clashes, parent: cur.parent, target: cur.target, config_ok: cur.configOk }),
  check: ({ name, ...p }, cur) => {
    if (cur.text === logrotatePolicy(name, p)) return unchanged(`${cur.file} already says exactly this`);
    if (cur.clashes.length) {
      throw new AirlockError('conflict', 'already_rotated', `${cur.clashes.map((c) => `${c.file} (${c.pattern})`).join(', ')} already rotate${cur.clashes.length === 1 ? 's' : ''} ${p.path}; logrotate refuses a log named twice`, 'change that policy instead, or a person removes the entry');
    }
    const dir = cur.parent;
    // A directory (or one above it) that is not root's alone was refused by the trusted-path rule, a link too:
    // a policy for such a log is written by a person, with an `su USER GROUP` directive.
    if (!dir.exists || !dir.isDir) throw new AirlockError('validation', 'no_such_directory', `${dir.path} is not a directory on this host`, 'the program that writes the log creates it; set the policy afterwards');
    if (cur.target === 'symlink' || cur.target === 'other') throw new AirlockError('conflict', 'not_a_file', `${p.path} is ${cur.target === 'symlink' ? 'a symbolic link' : 'not a regular file'}`);
  },
  preview: ({ name, ...p }, cur) => ({
    summary: `${cur.text === null ? 'Create' : 'Replace'} the logrotate policy airlock-${name} for ${p.path}`,
    change: {
      file: cur.file,
      ...(cur.text !== null ? { replaces: cur.text } : {}),
      content: logrotatePolicy(name, p),
      then: cur.configOk ? `checks the whole configuration with logrotate -d ${LOGROTATE_CONF}; on an error the file is restored` : `checks ${cur.file} alone with logrotate -d; on an error the file is restored`,
    },
    sideEffects: [
      `the daily logrotate run (logrotate.timer or cron) rotates ${p.path} ${p.frequency}${p.maxsize ? ` or once it exceeds ${p.maxsize}` : ''}, keeping ${p.rotate} old cop${p.rotate === 1 ? 'y' : 'ies'}`,
      'copytruncate: the log is copied and then emptied in place, so the program keeps writing to it without a restart; lines written between the copy and the truncation are lost',
    ],
    warnings: [
      ...(cur.configOk ? [] : [`logrotate -d ${LOGROTATE_CONF} already reports errors, so only this file is checked: a log named twice across files is not detected`]),
      ...(cur.target === 'absent' ? [`${p.path} does not exist yet (missingok: nothing happens until it does)`] : []),
    ],
  }),
  mechanism: ({ name, ...p }, cur) => [
    fileWrite(cur.file, logrotatePolicy(name, p), { mode: 0o644 }),
    // Debug mode changes nothing and exits 1 on a duplicate entry or an insecure directory: the job then fails and the file is restored.
    command('logrotate', ['-d', '--', cur.configOk ? LOGROTATE_CONF : cur.file], { paths: [p.path], noUndo: 'changes_nothing' }),
  ],
});

export const removeLogrotatePolicy = action({
  name: 'RemoveLogrotatePolicy',
  family: 'logging',
  description: 'Delete an Airlock logrotate policy /etc/logrotate.d/airlock-NAME (the logs and their rotated copies stay).',
  risk: 'medium',
  rollback: exact(),
  readOnly: false,
  runsPrograms: false,
  params: params({ name: policyName }),
  files: [`${LOGROTATE_DIR}/airlock-*`],
  example: { name: 'myapp' },
  current: ({ name }, host) => readPolicy(host, name),
  shown: (cur) => ({ file: cur.file, exists: cur.text !== null }),
  check: (_p, cur) => refuseNoPolicy(cur),
  preview: ({ name }, cur) => ({
    summary: `Remove the logrotate policy airlock-${name}`,
    change: { deletes: cur.file, content: cur.text, logs: logrotateEntries(cur.text ?? '') },
    sideEffects: ['these logs are no longer rotated and grow until another policy covers them; the logs and their old copies stay'],
  }),
  mechanism: (_p, cur) => [fileDelete(cur.file)],
});

export const runLogrotate = action({
  name: 'RunLogrotate',
  family: 'logging',
  description: 'Rotate the logs of one Airlock policy now (logrotate -f /etc/logrotate.d/airlock-NAME), whether or not they are due.',
  risk: 'medium',
  readOnly: false,
  rollback: noRollback('logrotate deletes the copy beyond the rotate count and empties each log in place while its program keeps writing to it; Airlock keeps no copy, so neither can be put back'),
  runsPrograms: true,
  params: params({ name: policyName }),
  files: [],
  example: { name: 'myapp' },
  current: async ({ name }, host) => {
    const policy = await readPolicy(host, name);
    const logs: Array<{ path: string; size: number }> = [];
    const patterns = logrotateEntries(policy.text ?? '');
    // Checked before anything is listed or looked at: the policy was safe when written, its directories may not be now.
    for (const pattern of patterns) await host.trustedPath(pattern);
    for (const pattern of patterns) {
      const names = pattern.endsWith('/*.log') ? ((await listDirectory(host, posix.dirname(pattern))) ?? []).filter((n) => /^[A-Za-z0-9][A-Za-z0-9._-]*\.log$/.test(n)) : [posix.basename(pattern)];
      for (const n of names) {
        const path = `${posix.dirname(pattern)}/${n}`;
        const st = await host.stat(path);
        if (st?.isFile) logs.push({ path, size: st.size });
      }
    }
    return { ...policy, patterns, logs };
  },
  shown: (cur) => ({ file: cur.file, exists: cur.text !== null, logs: cur.logs }),
  check: (_p, cur) => {
    refuseNoPolicy(cur);
    if (cur.logs.length === 0) throw new AirlockError('conflict', 'nothing_to_rotate', `no log named by ${cur.file} exists yet`);
  },
  preview: ({ name }, cur) => ({
    summary: `Rotate the logs of airlock-${name} now`,
    change: { policy: cur.file, logs: cur.logs.map((l) => l.path), text: 'each non-empty log is rotated as the policy says (copied to NAME.1, emptied, older copies shifted, the oldest beyond the count deleted)' },
    sideEffects: [...cur.logs.map((l) => `${l.path}: ${bytes(l.size)} now${l.size === 0 ? ' (empty: notifempty leaves it alone)' : ''}`), 'the copy beyond the rotate count is deleted'],
  }),
  mechanism: (_p, cur) => [command('logrotate', ['-f', '--', cur.file], { paths: cur.patterns })],
});
