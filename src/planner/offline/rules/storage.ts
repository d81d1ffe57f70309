/** Rules of the storage family: fstab, mounts, swap, directory sizes, LVM, file systems, devices, and freeing space. */
import { missing, rule, step, steps } from '../rule.js';
import { sizeInMiB, takePath, takeSize, type Clause } from '../words.js';

const DU_ROOTS = ['/srv', '/data', '/mnt', '/media', '/opt', '/home', '/tmp', '/var/tmp', '/var/log', '/var/lib', '/var/cache', '/var/backups', '/var/mail', '/var/spool'];
const MOUNT_ROOTS = ['/srv', '/mnt', '/data', '/media', '/var/lib'];

export const storageRules = [
  rule('storage.free-space', [['free', 'free up', 'clean', 'clean up', 'cleanup', 'reclaim', 'make room', 'recover', 'clear', 'low on', 'running out of', 'full'], ['disk space', 'space', 'disk', 'room', 'storage']], (c) => {
    const path = takePath(c, ['/']);
    const s = [step('DiskUsage', {}, 'see which file system is short of space first')];
    if (path !== null && DU_ROOTS.some((r) => path === r || path.startsWith(`${r}/`))) s.push(step('DiskUsageOf', { path }, `how much ${path} takes`));
    else if (path === null || path === '/var' || path === '/') s.push(step('DiskUsageOf', { path: '/var/log' }, 'how much the logs take'));
    s.push(step('JournalDiskUsage', {}, 'how much the journal takes'), step('VacuumJournal', { maxSize: '500M' }, 'shrink the archived journal to 500M'), step('Autoremove', {}, 'remove packages no longer needed'));
    return { steps: s };
  }, { also: ['some', 'on', 'in', 'the', 'up', 'of', 'is', 'disk', 'partition', 'filesystem', 'file system', 'root'], unless: ['how much', 'left', 'is there', 'lvm', 'volume group', 'volume groups', 'inodes', 'swap'] }),
  rule('storage.fstab', [['fstab', '/etc/fstab', 'mounted at boot']], () => steps(step('ListFstab', {}, 'the file systems mounted at boot')), { also: ['show', 'list', 'the', 'what', 'is', 'in', 'file', 'entries'], unless: ['add', 'remove', 'delete'] }),
  rule('storage.swap', [['swap', 'swap space', 'swapfile', 'swap file']], (c) => {
    const create = c.takeAny(['add', 'create', 'make', 'enable', 'set up', 'more']) !== null;
    const remove = !create && c.takeAny(['remove', 'delete', 'drop', 'disable']) !== null;
    const path = takePath(c, ['/swapfile', '/var/swap', '/srv', '/mnt', '/data']);
    if (remove) return steps(step('RemoveSwapFile', { path: path ?? '/swapfile' }, `turn off and delete ${path ?? '/swapfile'}`));
    if (create) {
      const size = takeSize(c);
      if (size === null) return missing('the size of the swap file (e.g. 2G)');
      const sizeMiB = sizeInMiB(size);
      return steps(step('CreateSwapFile', { path: path ?? '/swapfile', sizeMiB }, `a ${sizeMiB} MiB swap file at ${path ?? '/swapfile'}`));
    }
    return steps(step('ListSwap', {}, 'the active swap areas'));
  }, { also: ['show', 'list', 'the', 'a', 'of', 'is', 'how', 'much', 'used', 'usage', 'active', 'file', 'at'] }),
  rule('storage.du', [['size', 'big', 'large', 'how much', 'usage', 'du', 'space', 'takes', 'taking', 'using', 'uses', 'used']], (c) => {
    const path = takePath(c, DU_ROOTS);
    return path === null ? missing('which directory') : steps(step('DiskUsageOf', { path: path.replace(/\/$/, '') }, `the total size of ${path}`));
  }, { needs: (c) => c.tokens.some((t) => DU_ROOTS.some((r) => t.raw === r || t.raw.startsWith(`${r}/`))), also: ['is', 'the', 'of', 'how', 'disk', 'space', 'does', 'take', 'show', 'check', 'what', 'in'] }),
  rule('storage.mountpoint', [['mountpoint', 'mount point', 'mount directory', 'directory']], (c) => {
    const path = takePath(c, MOUNT_ROOTS);
    return path === null ? missing('where (a directory under /srv, /mnt, /data, /media or /var/lib)') : steps(step('CreateMountpoint', { path }, `create the directory ${path}`));
  }, { needs: (c) => ['create', 'make', 'add', 'mkdir'].some((w) => c.has(w)), also: ['create', 'make', 'add', 'mkdir', 'a', 'an', 'empty', 'at', 'the', 'for'] }),
  rule('storage.fstab-add', [['add', 'append', 'create'], ['fstab', 'fstab entry', 'to fstab', '/etc/fstab']], (c) => {
    const source = c.takeToken((t) => !t.literal && /^(UUID=[0-9A-Fa-f][0-9A-Fa-f-]{3,35}|LABEL=[A-Za-z0-9_][A-Za-z0-9._-]{0,31}|\/dev\/[A-Za-z0-9][A-Za-z0-9:._/-]*|tmpfs)$/.test(t.raw));
    const fstype = c.takeAny(['ext4', 'xfs', 'btrfs', 'vfat', 'tmpfs']);
    const mountpoint = takePath(c, MOUNT_ROOTS);
    if (source === null || mountpoint === null) return missing('the device (UUID=..., LABEL=... or /dev/...) and the mount point');
    if (fstype === null) return missing('the file system type (ext4, xfs, btrfs, vfat or tmpfs)');
    return steps(step('AddFstabEntry', { source, mountpoint, fstype, options: ['defaults', 'nofail'] }, `mount ${source} on ${mountpoint} at boot`));
  }, { also: ['entry', 'an', 'on', 'at', 'as', 'to', 'for', 'the', 'mount'] }),
  rule('storage.fstab-remove', [['remove', 'delete', 'drop'], ['fstab', 'fstab entry', 'from fstab', '/etc/fstab']], (c) => {
    const mountpoint = takePath(c, MOUNT_ROOTS);
    return mountpoint === null ? missing('which mount point') : steps(step('RemoveFstabEntry', { mountpoint }, `remove the fstab entry of ${mountpoint}`));
  }, { also: ['entry', 'the', 'for', 'of', 'from'] }),
  rule('storage.mount', [['mount']], (c) => {
    const mountpoint = takePath(c, MOUNT_ROOTS);
    return mountpoint === null ? missing('which mount point (an /etc/fstab entry under /srv, /mnt, /data, /media or /var/lib)') : steps(step('Mount', { mountpoint }, `mount ${mountpoint} from /etc/fstab`));
  }, { also: ['the', 'now', 'on', 'at'], unless: ['unmount', 'umount'] }),
  rule('storage.unmount', [['unmount', 'umount', 'detach']], (c) => {
    const mountpoint = takePath(c, MOUNT_ROOTS);
    return mountpoint === null ? missing('which mount point') : steps(step('Unmount', { mountpoint }, `unmount ${mountpoint}`));
  }, { also: ['the', 'now', 'from', 'file system', 'filesystem', 'disk', 'drive'] }),
  rule('storage.lvm', [['lvm', 'volume groups', 'volume group', 'logical volumes', 'lvs', 'vgs', 'pvs', 'physical volumes']], () => steps(step('LvmReport', {}, 'the LVM volumes and their free space')), { also: ['show', 'list', 'the', 'free', 'space', 'in', 'how', 'much', 'is', 'left', 'report'], unless: ['extend', 'grow', 'resize', 'enlarge'] }),
  rule('storage.extend-lv', [['extend', 'grow', 'enlarge', 'resize', 'increase', 'lvextend'], ['volume', 'lv', 'logical volume', 'by']], (c: Clause) => {
    const size = takeSize(c);
    const pair = c.takeToken((t) => /^(\/dev\/)?[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}\/[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/.test(t.raw) && !t.raw.startsWith('/srv'));
    let vg: string | null = null;
    let lv: string | null = null;
    if (pair !== null) [vg, lv] = pair.replace(/^\/dev\//, '').split('/') as [string, string];
    vg ??= c.after(['vg', 'group', 'in'], (t) => /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/.test(t.raw) && c.isName(t));
    lv ??= c.before(['volume', 'lv'], (t) => /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/.test(t.raw) && c.isName(t)) ?? c.after(['volume', 'lv'], (t) => /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/.test(t.raw) && c.isName(t));
    if (size === null || (size.unit !== 'M' && size.unit !== 'G')) return missing('how much to add (e.g. 10G)');
    if (vg === null || lv === null) return missing('the volume group and logical volume (e.g. vg0/data)');
    const resizefs = c.takeAny(['filesystem', 'file system', 'resizefs', 'and the filesystem', 'fs']) !== null;
    if (resizefs) c.take('resize'); // "and resize the filesystem": read, not left over
    return steps(step('ExtendLogicalVolume', { vg, lv, add: size.value, unit: size.unit, resizefs }, `grow ${vg}/${lv} by ${size.value}${size.unit}${resizefs ? ' with its file system' : ''}`));
  }, { also: ['the', 'its', 'and', 'logical', 'group', 'volume', 'too', 'with'] }),
  rule('storage.filesystems', [['filesystems', 'file systems', 'findmnt']], () => steps(step('ListFilesystems', {}, 'the mounted file systems with their use')), { also: ['list', 'show', 'the', 'mounted', 'which', 'what', 'are', 'real'] }),
  rule('storage.inodes', [['inodes', 'inode', 'df -i', 'out of inodes', 'running out of inodes']], () => steps(step('FilesystemInodes', {}, 'inode use of every file system')), { also: ['show', 'free', 'out', 'of', 'are', 'we', 'running', 'the', 'check', 'use', 'usage', 'left'] }),
  rule('storage.device', [['device', 'disk', 'drive', 'what is on', "what's on", 'holds', 'partition', 'info', 'show']], (c) => {
    const device = c.takeToken((t) => !t.literal && /^\/dev\/[A-Za-z0-9][A-Za-z0-9:._+-]*(\/[A-Za-z0-9][A-Za-z0-9:._+-]*){0,2}$/.test(t.raw));
    return device === null ? missing('which device (/dev/...)') : steps(step('BlockDeviceInfo', { device }, `what ${device} holds`));
  }, { needs: (c) => c.tokens.some((t) => /^\/dev\/[A-Za-z0-9]/.test(t.raw)), also: ['what', 'is', 'on', 'the', 'about', 'show', 'info', 'block'] }),
];
