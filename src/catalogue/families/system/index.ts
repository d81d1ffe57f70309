import type { AnyAction } from '../../action.js';
import { cancelScheduledReboot, rebootHost, scheduleReboot } from './reboot.js';
import { diskUsage, hostInfo, listBlockDevices, listMounts, listProcesses, memoryInfo, uptime } from './inventory.js';

/** The system family: read-only inventory of the host (OS, disks, memory, load, mounts, processes), and reboots. */
export const actions: readonly AnyAction[] = [hostInfo, diskUsage, memoryInfo, uptime, listBlockDevices, listMounts, listProcesses, rebootHost, scheduleReboot, cancelScheduledReboot];
