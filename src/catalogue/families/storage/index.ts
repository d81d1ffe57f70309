import type { AnyAction } from '../../action.js';
import { addFstabEntry, createMountpoint, listFstab, mount, removeFstabEntry, unmount } from './mounts.js';
import { diskUsageOf, filesystemInodes, listFilesystems } from './filesystems.js';
import { createSwapFile, listSwap, removeSwapFile } from './swap.js';
import { extendLogicalVolume, lvmReport } from './lvm.js';
import { blockDeviceInfo } from './block-devices.js';

/** The storage family: /etc/fstab, mounts and mount points, swap files, LVM, file system and block device reads. */
export const actions: readonly AnyAction[] = [
  listFstab,
  listSwap,
  diskUsageOf,
  createMountpoint,
  addFstabEntry,
  removeFstabEntry,
  mount,
  unmount,
  createSwapFile,
  removeSwapFile,
  lvmReport,
  extendLogicalVolume,
  listFilesystems,
  filesystemInodes,
  blockDeviceInfo,
];
