/**
 * LVM: the report of physical volumes, volume groups and logical volumes (pvs, vgs, lvs), and
 * ExtendLogicalVolume, which only grows (lvextend, never lvreduce) a plain or origin LV,
 * after checking the volume group's free extents. On a kernel without the device-mapper
 * driver (no "device-mapper" line in /proc/devices) no LV can be active, so the change is
 * to LVM metadata only and lvextend is told so with `--driverloaded n` (without it, it
 * fails trying to suspend a volume that cannot exist).
 *
 * What the tests execute for real (test/scenarios/volumes.ts): LVM metadata (pvs/vgs/lvs,
 * and lvextend of an inactive LV) on a loop device. The test machine's kernel has no
 * device-mapper, so an ACTIVE LV, and with it `--resizefs` and the path without
 * `--driverloaded n`, are covered by the unit tests only (argv, refusals), never executed.
 */
import { z } from 'zod';
import { AirlockError } from '../../../protocol/errors.js';
import { action, type Host } from '../../action.js';
import { command } from '../../mechanism.js';
import { params, token } from '../../params.js';
import { deviceNode } from './block-devices.js';
import { GiB, jsonOf, mib, MiB, TiB } from './reports.js';
import { noRollback } from '../../rollback.js';

/** A volume group or logical volume name as LVM allows it, less '+' and a leading '.' or '-'. */
export const lvmName = (what: string) => token(/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/, what, 64);

export const GROW_UNITS = { M: MiB, G: GiB } as const;

const REPORT = ['--reportformat', 'json', '--units', 'b', '--nosuffix', '-o'];
const PV_COLUMNS = 'pv_name,vg_name,pv_fmt,pv_attr,pv_size,pv_free';
const VG_COLUMNS = 'vg_name,vg_attr,vg_size,vg_free,vg_extent_size,pv_count,lv_count';
const LV_COLUMNS = 'vg_name,lv_name,lv_path,lv_attr,lv_size,segtype';

export interface PhysicalVolume {
  name: string;
  vg: string;
  attr: string;
  size: number;
  free: number;
}
export interface VolumeGroup {
  name: string;
  attr: string;
  size: number;
  free: number;
  extentSize: number;
  pvCount: number;
  lvCount: number;
}
export interface LogicalVolume {
  vg: string;
  name: string;
  path: string;
  /** lvs lv_attr: [0] type ('-' plain, 'o' origin, 't' thin pool, ...), [4] state ('a' active, 'X' unknown). */
  attr: string;
  size: number;
  segtype: string;
}
export interface LvmState {
  pvs: PhysicalVolume[];
  vgs: VolumeGroup[];
  lvs: LogicalVolume[];
}

/** The rows of one `pvs|vgs|lvs --reportformat json` report (its first report's `key` list). */
export function reportRows(stdout: string, key: 'pv' | 'vg' | 'lv'): Array<Record<string, string>> {
  const doc = JSON.parse(stdout) as { report?: Array<Record<string, unknown>> };
  const rows = doc.report?.[0]?.[key];
  if (!Array.isArray(rows)) throw new Error(`no "${key}" list in the report`);
  return rows as Array<Record<string, string>>;
}

async function lvmRows(host: Host, program: 'pvs' | 'vgs' | 'lvs', columns: string, key: 'pv' | 'vg' | 'lv') {
  const r = await host.run(program, [...REPORT, columns]);
  try {
    if (r.code !== 0) throw new Error(`exit status ${r.code}: ${r.stderr.trim().split('\n').pop()}`);
    return reportRows(r.stdout, key);
  } catch (e) {
    throw new AirlockError('execution', 'lvm_unreadable', `${program} failed: ${(e as Error).message}`);
  }
}

/** Physical volumes, volume groups and logical volumes, sizes in bytes. */
export async function readLvm(host: Host): Promise<LvmState> {
  const num = (s: string | undefined) => Number(s ?? 0);
  const pvs = (await lvmRows(host, 'pvs', PV_COLUMNS, 'pv')).map((r) => ({ name: r.pv_name ?? '', vg: r.vg_name ?? '', attr: r.pv_attr ?? '', size: num(r.pv_size), free: num(r.pv_free) }));
  const vgs = (await lvmRows(host, 'vgs', VG_COLUMNS, 'vg')).map((r) => ({
    name: r.vg_name ?? '',
    attr: r.vg_attr ?? '',
    size: num(r.vg_size),
    free: num(r.vg_free),
    extentSize: num(r.vg_extent_size),
    pvCount: num(r.pv_count),
    lvCount: num(r.lv_count),
  }));
  const lvs = (await lvmRows(host, 'lvs', LV_COLUMNS, 'lv')).map((r) => ({ vg: r.vg_name ?? '', name: r.lv_name ?? '', path: r.lv_path ?? '', attr: r.lv_attr ?? '', size: num(r.lv_size), segtype: r.segtype ?? '' }));
  return { pvs, vgs, lvs };
}

/** True when the running kernel has the device-mapper driver (a "device-mapper" block major in /proc/devices). */
export const hasDeviceMapper = (procDevices: string) => /^\s*\d+ device-mapper$/m.test(procDevices);

export const lvmReport = action({
  name: 'LvmReport',
  family: 'storage',
  description: 'Show LVM physical volumes, volume groups (size, free space, extent size) and logical volumes (path, attributes, size), sizes in bytes, as JSON (pvs, vgs, lvs).',
  risk: 'low',
  readOnly: true,
  sensitive: false,
  reachesNetwork: false,
  params: params({}),
  files: [],
  example: {},
  current: (_p, host) => readLvm(host),
  shown: (cur) => ({ physical_volumes: cur.pvs.length, volume_groups: cur.vgs.length, logical_volumes: cur.lvs.length }),
  preview: (_p, cur) => ({ summary: `Read the LVM report (pvs, vgs, lvs): ${cur.pvs.length} physical volumes, ${cur.vgs.length} volume groups, ${cur.lvs.length} logical volumes`, change: null }),
  mechanism: () => [command('pvs', [...REPORT, PV_COLUMNS]), command('vgs', [...REPORT, VG_COLUMNS]), command('lvs', [...REPORT, LV_COLUMNS])],
});

/** File systems lvextend --resizefs (fsadm) can grow. */
export const RESIZABLE_FILESYSTEMS = ['ext2', 'ext3', 'ext4', 'xfs'];
/** LV types grown here: plain volumes and snapshot origins (thin, cache, RAID and snapshots have their own rules). */
const GROWABLE_LV_TYPES = ['-', 'o'];

export const extendLogicalVolume = action({
  name: 'ExtendLogicalVolume',
  family: 'storage',
  description:
    'Grow one logical volume by N MiB or GiB (lvextend --size +N), when its volume group has the free extents; optionally grow the ext2/3/4 or XFS file system on it too (--resizefs, active volumes only). Never shrinks.',
  risk: 'high',
  readOnly: false,
  rollback: noRollback('a grown logical volume cannot be shrunk back safely: lvreduce can cut off data a grown file system already uses, and XFS cannot shrink at all'),
  runsPrograms: false,
  params: params({
    vg: lvmName('volume group name'),
    lv: lvmName('logical volume name'),
    add: z.number().int().min(1).max(67_108_864),
    unit: z.enum(['M', 'G']),
    resizefs: z.boolean().optional(),
  }).refine((p) => p.add * GROW_UNITS[p.unit] <= 64 * TiB, { message: 'at most 64 TiB at once', path: ['add'] }),
  files: [],
  example: { vg: 'vg0', lv: 'data', add: 10, unit: 'G', resizefs: true },
  current: async ({ vg, lv }, host) => {
    const lvm = await readLvm(host);
    const volume = lvm.lvs.find((l) => l.vg === vg && l.name === lv) ?? null;
    const active = volume?.attr[4] === 'a';
    let fileSystem: { fstype: string; mountpoint: string } | null = null;
    if (volume && active) {
      const r = await host.run('lsblk', ['-J', '-o', 'FSTYPE,MOUNTPOINT', '--', await deviceNode(host, volume.path)]);
      const dev = r.code === 0 ? jsonOf<{ blockdevices?: Array<{ fstype?: string | null; mountpoint?: string | null }> }>(r.stdout)?.blockdevices?.[0] : undefined;
      if (dev?.fstype) fileSystem = { fstype: dev.fstype, mountpoint: dev.mountpoint ?? '' };
    }
    return {
      group: lvm.vgs.find((g) => g.name === vg) ?? null,
      volume,
      active,
      fileSystem,
      deviceMapper: hasDeviceMapper((await host.readFile('/proc/devices')) ?? ''),
    };
  },
  check: ({ vg, lv, add, unit, resizefs }, cur) => {
    if (!cur.group) throw new AirlockError('validation', 'no_such_volume_group', `there is no volume group ${vg}`, 'LvmReport lists them');
    if (!cur.volume) throw new AirlockError('validation', 'no_such_logical_volume', `volume group ${vg} has no logical volume ${lv}`, 'LvmReport lists them');
    if (!GROWABLE_LV_TYPES.includes(cur.volume.attr[0] ?? '')) {
      throw new AirlockError('conflict', 'unsupported_volume_type', `${vg}/${lv} is not a plain logical volume (attributes ${cur.volume.attr}, ${cur.volume.segtype})`, 'thin pools, snapshots, cache and RAID volumes are grown by a person');
    }
    const need = growth(cur.group, add, unit);
    if (need > cur.group.free) {
      throw new AirlockError('conflict', 'insufficient_free_space', `volume group ${vg} has ${mib(cur.group.free)} free; growing ${vg}/${lv} by ${add} ${unit}iB needs ${mib(need)}`, 'add a physical volume to the group, or ask for less');
    }
    if (resizefs && !cur.active) throw new AirlockError('conflict', 'not_active', `${vg}/${lv} is not active: its file system cannot be grown`, 'grow it without resizefs, or activate it first');
    if (resizefs && !RESIZABLE_FILESYSTEMS.includes(cur.fileSystem?.fstype ?? '')) {
      throw new AirlockError('conflict', 'no_resizable_filesystem', `${vg}/${lv} holds ${cur.fileSystem?.fstype ?? 'no file system'}: only ${RESIZABLE_FILESYSTEMS.join(', ')} are grown with it`, 'grow it without resizefs');
    }
  },
  preview: ({ vg, lv, add, unit, resizefs }, cur) => {
    const need = growth(cur.group!, add, unit);
    const fs = cur.fileSystem;
    return {
      summary: `Grow the logical volume ${vg}/${lv} by ${add} ${unit}iB (${mib(cur.volume!.size)} to ${mib(cur.volume!.size + need)})${resizefs ? ` with its ${fs!.fstype} file system` : ''}`,
      change: {
        logical_volume: `${vg}/${lv}`,
        size_bytes: { before: cur.volume!.size, after: cur.volume!.size + need },
        volume_group_free_bytes: { before: cur.group!.free, after: cur.group!.free - need },
        grows_filesystem: resizefs ? fs : null,
      },
      sideEffects: [
        ...(resizefs ? [`the ${fs!.fstype} file system ${fs!.mountpoint ? `mounted on ${fs!.mountpoint} ` : ''}grows with it (lvextend runs fsadm; online when mounted)`] : []),
        ...(!resizefs && fs ? [`the ${fs.fstype} file system on it keeps its size until it is grown too`] : []),
        ...(cur.deviceMapper ? [] : ['this kernel has no device-mapper driver, so no logical volume is active here: only the LVM metadata changes (lvextend --driverloaded n)']),
      ],
      warnings: ['Airlock cannot undo this: shrinking a logical volume (and its file system) is a separate operation that can lose data'],
    };
  },
  mechanism: ({ vg, lv, add, unit, resizefs }, cur) => [
    command('lvextend', ['--size', `+${add}${unit}`, ...(resizefs ? ['--resizefs'] : []), ...(cur.deviceMapper ? [] : ['--driverloaded', 'n']), '--', `${vg}/${lv}`], { timeoutMs: 600_000 }),
  ],
});

/** Bytes an LV grows by: the request rounded up to whole extents, as lvextend does. */
export function growth(group: { extentSize: number }, add: number, unit: keyof typeof GROW_UNITS): number {
  const bytes = add * GROW_UNITS[unit];
  const extent = group.extentSize || 1;
  return Math.ceil(bytes / extent) * extent;
}
