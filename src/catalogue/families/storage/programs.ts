/**
 * Programs of the storage family (absolute candidate paths; see ../../programs.ts). The
 * last block is also in BASE_PROGRAMS, with the same paths.
 */
export const PROGRAMS_STORAGE = {
  /**
   * `mount -- MOUNTPOINT` mounts the /etc/fstab entry for that mount point (util-linux honours `--`);
   * `mount -t TYPE -o OPTIONS -- SOURCE MOUNTPOINT` puts back what an unmount took away.
   */
  mount: ['/usr/bin/mount', '/bin/mount'],
  /** `umount -- MOUNTPOINT`; fails with "target is busy" while a process uses it. */
  umount: ['/usr/bin/umount', '/bin/umount'],
  /** `du -sh -x -- DIR`: one total, not crossing into other file systems. */
  du: ['/usr/bin/du', '/bin/du'],
  /** `mkdir -m 0755 -- DIR` creates one mount point (no -p: the parent must exist). */
  mkdir: ['/usr/bin/mkdir', '/bin/mkdir'],
  /** `rmdir -- DIR` removes an empty directory only: the undo of mkdir. */
  rmdir: ['/usr/bin/rmdir', '/bin/rmdir'],
  /**
   * `fallocate --length NMiB -- /proc/self/fd/3` reserves the swap file's blocks (no holes, which
   * swapon refuses) in the file the daemon created and hands it as descriptor 3, never by name.
   */
  fallocate: ['/usr/bin/fallocate', '/bin/fallocate'],
  /** `mkswap -- /proc/self/fd/3` writes the swap signature, into that same descriptor. */
  mkswap: ['/usr/sbin/mkswap', '/sbin/mkswap'],
  /**
   * `swapon -- PATH` turns one swap file on; it takes only a name, checked right before to lead to the daemon's file.
   * `swapon --show=NAME,TYPE,SIZE --noheadings --bytes` lists the swap areas (a state probe: a read).
   */
  swapon: ['/usr/sbin/swapon', '/sbin/swapon'],
  /** `swapoff -- PATH` turns one swap file off (its pages move back to RAM). */
  swapoff: ['/usr/sbin/swapoff', '/sbin/swapoff'],
  /** `stat --format='%F %a %u %g %s' -- PATH` (never -c: the shell rule refuses it): what a path is, its mode, owner and size (a state probe: a read). */
  stat: ['/usr/bin/stat', '/bin/stat'],
  /** `rm -- PATH` deletes one swap file (never -r, never -f). */
  rm: ['/usr/bin/rm', '/bin/rm'],
  /** `blkid -p -o value -s TYPE -- PATH` probes what signature a file carries (swap, ext4, ...). */
  blkid: ['/usr/sbin/blkid', '/sbin/blkid'],
  /** `pvs --reportformat json --units b --nosuffix -o COLUMNS`: the physical volumes (lvm2 multi-call, chosen by argv[0]). */
  pvs: ['/usr/sbin/pvs', '/sbin/pvs'],
  /** `vgs --reportformat json --units b --nosuffix -o COLUMNS`: the volume groups. */
  vgs: ['/usr/sbin/vgs', '/sbin/vgs'],
  /** `lvs --reportformat json --units b --nosuffix -o COLUMNS`: the logical volumes. */
  lvs: ['/usr/sbin/lvs', '/sbin/lvs'],
  /** `lvextend [--driverloaded n] [--resizefs] --size +N{M|G} -- VG/LV` grows one logical volume. */
  lvextend: ['/usr/sbin/lvextend', '/sbin/lvextend'],
  // Also in BASE_PROGRAMS: findmnt (`-J ... -M|-T PATH`, `--verify --tab-file /etc/fstab`, `-J -b --df`,
  // `-n -o SOURCE,FSTYPE,OPTIONS -M PATH`), `systemctl daemon-reload` and `show -p LoadState -p SourcePath -- UNIT`, lsblk `-J ... -- DEVICE`, `df -i -P -T`, `ls -1 -A -- DIR`, `readlink -- PATH`.
  findmnt: ['/usr/bin/findmnt', '/bin/findmnt'],
  systemctl: ['/usr/bin/systemctl', '/bin/systemctl'],
  lsblk: ['/usr/bin/lsblk', '/bin/lsblk'],
  df: ['/usr/bin/df', '/bin/df'],
  ls: ['/usr/bin/ls', '/bin/ls'],
  readlink: ['/usr/bin/readlink', '/bin/readlink'],
} as const satisfies Record<string, readonly string[]>;
