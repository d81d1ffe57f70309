/** Programs of the volumes actions (absolute candidate paths; see ../programs.ts). */
export const PROGRAMS_VOLUMES = {
  /** `dd if=/dev/null of=PATH conv=excl status=none` creates an empty file and fails if PATH exists (O_EXCL): a swap file never replaces anything. */
  dd: ['/usr/bin/dd', '/bin/dd'],
  /** `chmod 0600 -- PATH` on the new, still empty swap file. */
  chmod: ['/usr/bin/chmod', '/bin/chmod'],
  /** `fallocate --length NMiB -- PATH` reserves the swap file's blocks (no holes, which swapon refuses). */
  fallocate: ['/usr/bin/fallocate', '/bin/fallocate'],
  /** `mkswap -- PATH` writes the swap signature. */
  mkswap: ['/usr/sbin/mkswap', '/sbin/mkswap'],
  /** `swapon -- PATH` turns one swap file on. */
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
