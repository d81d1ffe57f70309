/**
 * The host's names: the host name itself (/etc/hostname and the running name) and the
 * pretty name systemd-hostnamed keeps.
 */
import { AirlockError } from '../../../protocol/errors.js';
import { action, type Host, unchanged } from '../../action.js';
import { command, fileScan, fileWrite } from '../../mechanism.js';
import { hostName, params, token } from '../../params.js';
import { readHostsFile } from '../../lib/hosts-file.js';
import { clip } from '../../lib/text.js';
import { exact } from '../../rollback.js';

export const getHostname = action({
  name: 'GetHostname',
  family: 'identity',
  description: 'Show the host name configured in /etc/hostname and the one the kernel is running with.',
  risk: 'low',
  readOnly: true,
  sensitive: false,
  reachesNetwork: false,
  params: params({}),
  files: ['/etc/hostname'],
  example: {},
  current: async (_p, host) => ({ hasFile: (await host.stat('/etc/hostname'))?.isFile === true }),
  preview: (_p, cur) => ({ summary: `Read the running host name${cur.hasFile ? ' and /etc/hostname' : ''}`, change: null }),
  mechanism: (_p, cur) => [...(cur.hasFile ? [fileScan('/etc/hostname')] : []), command('hostname', [])],
});

interface HostnameState {
  /** First line of /etc/hostname, or null when the file is absent. */
  configured: string | null;
  running: string;
  /** Whether some /etc/hosts entry names the old / the new name. */
  hostsNamesOld: boolean;
  hostsNamesNew: boolean;
}

async function hostnameState(newName: string, host: Host): Promise<HostnameState> {
  const file = await host.readFile('/etc/hostname');
  const run = await host.run('hostname', []);
  if (run.code !== 0 || run.stdout.trim() === '') {
    throw new AirlockError('execution', 'hostname_unreadable', 'could not read the running host name, so a change could not be undone');
  }
  const running = run.stdout.trim();
  const { entries } = await readHostsFile(host);
  const named = (n: string) => entries.some((e) => e.names.some((x) => x.toLowerCase() === n.toLowerCase()));
  return { configured: file === null ? null : (file.split('\n')[0] ?? '').trim(), running, hostsNamesOld: named(running), hostsNamesNew: named(newName) };
}

export const setHostname = action({
  name: 'SetHostname',
  family: 'identity',
  description: 'Rename the host: write /etc/hostname and set the running name (a single RFC 1123 label).',
  risk: 'medium',
  // /etc/hostname from its snapshot; the running name by `hostname -- OLD`, read by the same program.
  rollback: exact(() => [{ program: 'hostname', args: [] }]),
  readOnly: false,
  runsPrograms: false,
  params: params({ hostname: hostName }),
  files: ['/etc/hostname'],
  example: { hostname: 'web-01' },
  current: ({ hostname }, host) => hostnameState(hostname, host),
  check: ({ hostname }, cur) => {
    if (cur.configured === hostname && cur.running === hostname) {
      return unchanged(`the host is already named ${hostname}`);
    }
  },
  preview: ({ hostname }, cur) => ({
    summary: `Rename the host from ${cur.running} to ${hostname}`,
    change: {
      file: '/etc/hostname',
      from: cur.configured,
      to: hostname,
      running_name: { from: cur.running, to: hostname },
    },
    sideEffects: ['new log lines and new login prompts show the new name; open sessions keep showing the old one until they log in again'],
    warnings: [
      ...(cur.hostsNamesOld && cur.running !== hostname ? [`/etc/hosts still names the old host ${cur.running}; remove it with RemoveHostsEntry if it should go`] : []),
      ...(!cur.hostsNamesNew ? [`/etc/hosts does not name ${hostname}: sudo may warn "unable to resolve host ${hostname}" until AddHostsEntry maps it (e.g. to 127.0.1.1)`] : []),
    ],
  }),
  mechanism: ({ hostname }, cur) => [
    fileWrite('/etc/hostname', `${hostname}\n`, { mode: 0o644 }),
    command('hostname', ['--', hostname], { undo: command('hostname', ['--', cur.running]) }),
  ],
});

/** A pretty host name: words of letters, digits and . _ ' - separated by single spaces. */
export const prettyHostname = token(/^[A-Za-z0-9._'-]+( [A-Za-z0-9._'-]+)*$/, "pretty host name (letters, digits, . _ ' - and single spaces between words)", 64);

export const setPrettyHostname = action({
  name: 'SetPrettyHostname',
  family: 'identity',
  description: "Set the host's pretty name (free-form, e.g. \"Web server 1\") through systemd-hostnamed, which keeps it as PRETTY_HOSTNAME in /etc/machine-info; the host name itself is not changed.",
  risk: 'medium',
  // hostnamed writes the file (and removes it when the name goes back to none): both are read.
  rollback: exact(() => [{ file: '/etc/machine-info' }, { program: 'hostnamectl', args: ['--pretty', 'status'] }]),
  readOnly: false,
  runsPrograms: false,
  params: params({ pretty: prettyHostname }),
  files: [],
  example: { pretty: 'Web server 1' },
  current: async (_p, host) => {
    const r = await host.run('hostnamectl', ['--pretty', 'status']);
    // hostnamectl prints the name and a newline; spaces inside and around it are part of it.
    return r.code === 0 ? { pretty: r.stdout.replace(/\n$/, ''), error: '' } : { pretty: null, error: clip(r.stderr.trim().split('\n').pop() ?? '', 200) };
  },
  check: ({ pretty }, cur) => {
    if (cur.pretty === null) {
      throw new AirlockError('execution', 'hostnamed_unreachable', `hostnamectl could not read the pretty host name (${cur.error || 'no error text'}), so it could not be put back`, 'is systemd the init system, with dbus running?');
    }
    if (cur.pretty === pretty) return unchanged(`the pretty host name is already ${JSON.stringify(pretty)}`);
  },
  preview: ({ pretty }, cur) => ({
    summary: `Set the pretty host name from ${cur.pretty ? JSON.stringify(cur.pretty) : '(none)'} to ${JSON.stringify(pretty)}`,
    change: { pretty_hostname: { from: cur.pretty, to: pretty }, file: '/etc/machine-info', text: 'systemd-hostnamed writes PRETTY_HOSTNAME= in /etc/machine-info; /etc/hostname and the running host name stay as they are' },
    sideEffects: ['hostnamectl and desktop or network browsers that ask systemd-hostnamed show the new name'],
  }),
  mechanism: ({ pretty }, cur) => [
    command('hostnamectl', ['set-hostname', '--pretty', '--', pretty], { undo: command('hostnamectl', ['set-hostname', '--pretty', '--', cur.pretty ?? '']) }),
  ],
});
