/** Rules of the system family: what the host is, its disks, memory, load and processes. */
import { rule, step, steps } from '../rule.js';

export const systemRules = [
  rule('system.hostinfo', [['os', 'operating system', 'distribution', 'distro', 'release', 'os-release', 'uname']], () => steps(step('HostInfo', {}, 'the operating system release and the running kernel')), { also: ['version', 'which', 'running', 'kernel'] }),
  rule('system.kernel-version', [['kernel'], ['version', 'running', 'which']], () => steps(step('HostInfo', {}, 'the running kernel and the release')), { unless: ['modules', 'module', 'parameters', 'messages', 'log', 'logs', 'command'] }),
  rule('system.disk', [['disk', 'disks', 'df', 'space', 'disk space', 'storage']], () => steps(step('DiskUsage', {}, 'size, use and free space of every file system')),
    { also: ['free', 'left', 'full', 'usage', 'used', 'available', 'how', 'much', 'show', 'check'], unless: ['partitions', 'list', 'devices'] }),
  rule('system.memory', [['memory', 'ram', 'mem']], () => steps(step('MemoryInfo', {}, 'total, used and available memory and swap')), { also: ['free', 'left', 'usage', 'used', 'available', 'how', 'much', 'show', 'check'] }),
  rule('system.uptime', [['uptime', 'load', 'load average', 'been up', 'loadavg']], () => steps(step('Uptime', {}, 'time since boot and the load averages')), { also: ['long', 'how', 'show', 'what'] }),
  rule('system.block-devices', [['block devices', 'lsblk', 'partitions', 'drives', 'disks'], ['list', 'show', 'which', 'what', 'partitions', 'attached']], () => steps(step('ListBlockDevices', {}, 'block devices with size, file system and mount point')), { also: ['are', 'attached'] }),
  rule('system.mounts', [['mounted', 'mounts', 'mount points', 'mountpoints']], () => steps(step('ListMounts', {}, 'mounted file systems and their options')), { also: ['what', 'is', 'list', 'show', 'where'], unless: ['fstab'] }),
  rule('system.processes', [['processes', 'ps', 'running processes']], () => steps(step('ListProcesses', {}, 'processes by CPU use')), { also: ['list', 'show', 'running', 'what', 'is'] }),
];
