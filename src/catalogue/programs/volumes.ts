/** Programs of the volumes actions (absolute candidate paths; see ../programs.ts). */
export const PROGRAMS_VOLUMES = {
  /**
   * `fallocate --length NMiB -- /proc/self/fd/3` reserves the swap file's blocks (no holes, which
   * swapon refuses) in the file the daemon created and hands it as descriptor 3, never by name.
   */
  fallocate: ['/usr/bin/fallocate', '/bin/fallocate'],
  /** `mkswap -- /proc/self/fd/3` writes the swap signature, into that same descriptor. */
  mkswap: ['/usr/sbin/mkswap', '/sbin/mkswap'],
  /** `swapon -- PATH` turns one swap file on; it takes only a name, checked right before to lead to the daemon's file. */
  swapon: ['/usr/sbin/swapon', '/sbin/swapon'],
  /** `swapoff -- PATH` turns one swap file off (its pages move back to RAM). */
  swapoff: ['/usr/sbin/swapoff', '/sbin/swapoff'],
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
} as const satisfies Record<string, readonly string[]>;
