/** Programs of the storage actions (absolute candidate paths; see ../programs.ts). */
export const PROGRAMS_STORAGE = {
  /** `mount -- MOUNTPOINT` mounts the /etc/fstab entry for that mount point (util-linux honours `--`). */
  mount: ['/usr/bin/mount', '/bin/mount'],
  /** `umount -- MOUNTPOINT`; fails with "target is busy" while a process uses it. */
  umount: ['/usr/bin/umount', '/bin/umount'],
  /** `du -sh -x -- DIR`: one total, not crossing into other file systems. */
  du: ['/usr/bin/du', '/bin/du'],
  /** `mkdir -m 0755 -- DIR` creates one mount point (no -p: the parent must exist). */
  mkdir: ['/usr/bin/mkdir', '/bin/mkdir'],
  /** `rmdir -- DIR` removes an empty directory only: the undo of mkdir. */
  rmdir: ['/usr/bin/rmdir', '/bin/rmdir'],
} as const satisfies Record<string, readonly string[]>;
