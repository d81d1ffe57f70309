/** system family: read-only inventory of the host (OS, disks, memory, load, mounts, processes). */
import { action } from '../../action.js';
import { command, fileScan } from '../../mechanism.js';
import { params } from '../../params.js';
import { fixedRead } from '../../lib/fixed-read.js';

/** /etc/os-release is usually a link to /usr/lib/os-release; file steps refuse links, so read the real file. */
const OS_RELEASE = ['/etc/os-release', '/usr/lib/os-release'];

export const hostInfo = action({
  name: 'HostInfo',
  family: 'system',
  description: 'Show the operating system release and the running kernel.',
  risk: 'low',
  readOnly: true,
  sensitive: false,
  reachesNetwork: false,
  params: params({}),
  files: OS_RELEASE,
  example: {},
  current: async (_p, host) => {
    for (const f of OS_RELEASE) if ((await host.stat(f))?.isFile) return { osRelease: f };
    return { osRelease: null };
  },
  preview: (_p, cur) => ({ summary: `Read ${cur.osRelease ?? 'the kernel name (no os-release file found)'} and uname`, change: null }),
  mechanism: (_p, cur) => [...(cur.osRelease ? [fileScan(cur.osRelease)] : []), command('uname', ['-snrvmo'])],
});

export const diskUsage = fixedRead({
  name: 'DiskUsage',
  sensitive: false,
  reachesNetwork: false,
  family: 'system',
  description: 'Show size, use and free space of every mounted file system.',
  summary: 'Read file system usage (df)',
  steps: [command('df', ['-hPT'])],
});

export const memoryInfo = fixedRead({
  name: 'MemoryInfo',
  sensitive: false,
  reachesNetwork: false,
  family: 'system',
  description: 'Show total, used and available memory and swap, in bytes.',
  summary: 'Read memory and swap usage (free)',
  steps: [command('free', ['-b', '-w'])],
});

export const uptime = fixedRead({
  name: 'Uptime',
  sensitive: false,
  reachesNetwork: false,
  family: 'system',
  description: 'Show seconds since boot (/proc/uptime) and the load averages (/proc/loadavg).',
  summary: 'Read /proc/uptime and /proc/loadavg',
  files: ['/proc/uptime', '/proc/loadavg'],
  steps: [fileScan('/proc/uptime'), fileScan('/proc/loadavg')],
});

export const listBlockDevices = fixedRead({
  name: 'ListBlockDevices',
  sensitive: false,
  reachesNetwork: false,
  family: 'system',
  description: 'List block devices with size, type, file system and mount point, as JSON.',
  summary: 'List block devices (lsblk)',
  // MOUNTPOINT (singular) exists in every util-linux Debian and Ubuntu ship; MOUNTPOINTS needs 2.37.
  steps: [command('lsblk', ['-J', '-o', 'NAME,SIZE,TYPE,FSTYPE,MOUNTPOINT'])],
});

export const listMounts = fixedRead({
  name: 'ListMounts',
  sensitive: false,
  reachesNetwork: false,
  family: 'system',
  description: 'List mounted file systems with source, type and options, as JSON.',
  summary: 'List mounts (findmnt)',
  steps: [command('findmnt', ['-J', '-l'])],
});

export const listProcesses = fixedRead({
  name: 'ListProcesses',
  sensitive: false,
  reachesNetwork: false,
  family: 'system',
  description: 'List processes by CPU use: pid, user, %CPU, %MEM and program name (never the command line, which may hold secrets).',
  summary: 'List processes (ps), busiest first',
  steps: [command('ps', ['-eo', 'pid,user,pcpu,pmem,comm', '--sort=-pcpu'])],
});
