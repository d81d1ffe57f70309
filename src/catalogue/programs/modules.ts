/**
 * Programs of the kernel module actions (families/modules.ts; absolute candidate paths; see ../programs.ts).
 * Moved out of the old netconfig table when the network family got its own folder: modprobe is the
 * kernel family's, and belongs in its folder's programs.ts once that exists.
 */
export const PROGRAMS_MODULES = {
  /** `modprobe -- MODULE` loads, `modprobe -r -- MODULE` unloads (getopt_long: honours `--`). */
  modprobe: ['/usr/sbin/modprobe', '/sbin/modprobe'],
} as const satisfies Record<string, readonly string[]>;
