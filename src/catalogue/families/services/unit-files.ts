/**
 * Unit files (family 'services'): the files systemd loaded a unit from (its unit file
 * and drop-ins, in the order systemd applies them), shown as an unprivileged user may
 * read them; the installed unit files listed; daemon-reload. They are read, never written.
 */
import { posix } from 'node:path';
import { z } from 'zod';
import { action, nothingToRead, type Host } from '../../action.js';
import { command } from '../../mechanism.js';
import { params, unitName } from '../../params.js';
import { readUnit, refuseMissing, type UnitState } from '../../lib/systemd.js';
import { dropInDir, OWN_DROPIN } from './dropins.js';
import { daemonReload, showProperties, unitsNeedingReload } from './properties.js';
import { exact } from '../../rollback.js';

/** The type filters of ListUnitFiles: the unit types that have unit files. */
export const UNIT_FILE_TYPES = ['service', 'socket', 'timer', 'target', 'path', 'mount', 'automount', 'swap', 'slice'] as const;

/** A file that configures a unit, and whether any user may read it (what the unprivileged reads here show). */
export interface UnitFile {
  path: string;
  airlock: boolean;
  readableByAll: boolean;
}

/** A unit's state plus the files systemd loaded it from: its unit file and drop-ins, in the order systemd applies them. */
export interface UnitFiles extends UnitState {
  dropIns: UnitFile[];
  /** Files of the unit an unprivileged read cannot show (readable by root only, or gone). */
  hidden: string[];
}

async function describeFile(host: Host, path: string, unit: string): Promise<UnitFile> {
  const st = await host.stat(path);
  return { path, airlock: posix.dirname(path) === dropInDir(unit) && OWN_DROPIN.test(posix.basename(path)), readableByAll: st !== null && (st.mode & 0o004) !== 0 };
}

export async function readUnitFiles(host: Host, unit: string): Promise<UnitFiles> {
  const u = await readUnit(host, unit);
  const { DropInPaths } = await showProperties(host, unit, ['DropInPaths']);
  const dropIns = await Promise.all(DropInPaths!.split(/\s+/).filter(Boolean).map((p) => describeFile(host, p, unit)));
  const fragment = u.fragmentPath ? [await describeFile(host, u.fragmentPath, unit)] : [];
  return { ...u, dropIns, hidden: [...fragment, ...dropIns].filter((f) => !f.readableByAll).map((f) => f.path) };
}

/** systemctl cat stops at the first file it cannot read: that one and every later one go unshown. */
function unshownByCat(cur: UnitFiles): string[] {
  const files = [...(cur.fragmentPath ? [cur.fragmentPath] : []), ...cur.dropIns.map((d) => d.path)];
  const first = files.findIndex((f) => cur.hidden.includes(f));
  if (first < 0) return [];
  const after = files.slice(first + 1);
  return [`${files[first]} is readable by root only: it is not shown${after.length ? `, nor the files systemctl cat prints after it (${after.join(', ')}); ShowServiceOverrides shows the drop-ins any user may read` : ''}`];
}

export const showUnitFile = action({
  name: 'ShowUnitFile',
  family: 'services',
  description: 'Print the unit file of an existing unit and its drop-ins, as systemd applies them (systemctl cat), read as an unprivileged user.',
  risk: 'low',
  readOnly: true,
  // Sensitive: unit file contents: Environment= and command lines may carry secrets.
  sensitive: true,
  reachesNetwork: false,
  params: params({ unit: unitName }),
  files: [],
  example: { unit: 'nginx.service' },
  current: ({ unit }, host) => readUnitFiles(host, unit),
  check: ({ unit }, cur) => refuseMissing(unit, cur),
  preview: ({ unit }, cur) => ({
    summary: `Show the unit file of ${unit}${cur.dropIns.length ? ` and its ${cur.dropIns.length} drop-in${cur.dropIns.length === 1 ? '' : 's'}` : ''}`,
    change: null,
    warnings: unshownByCat(cur),
  }),
  // As nobody: systemctl cat prints what any user may read and exits 1 at a file only root may read.
  mechanism: ({ unit }, cur) => [command('systemctl', ['cat', '--no-pager', '--', unit], { unprivileged: true, okCodes: cur.hidden.length ? [0, 1] : [0] })],
});

export const listUnitFiles = action({
  name: 'ListUnitFiles',
  family: 'services',
  description: `List the installed unit files with their enablement state and vendor preset, optionally of one type (${UNIT_FILE_TYPES.join(', ')}).`,
  risk: 'low',
  readOnly: true,
  sensitive: false,
  reachesNetwork: false,
  params: params({ type: z.enum(UNIT_FILE_TYPES).optional() }),
  files: [],
  example: { type: 'timer' },
  current: nothingToRead,
  preview: ({ type }) => ({ summary: `List the ${type ? `${type} ` : ''}unit files and their enablement`, change: null }),
  mechanism: ({ type }) => [command('systemctl', ['list-unit-files', '--no-pager', '--no-legend', ...(type ? [`--type=${type}`] : [])])],
});

export const daemonReloadAction = action({
  name: 'DaemonReload',
  family: 'services',
  description: 'Make systemd read every unit file and drop-in again and rerun its generators (systemctl daemon-reload); running services keep running.',
  risk: 'medium',
  readOnly: false,
  // An event: systemd reads again the files on disk, which it writes none of, and no unit starts, stops or
  // changes its enablement. What it loads is what the files already say; nothing would want the old copy back.
  rollback: exact(),
  runsPrograms: false,
  params: params({}),
  files: [],
  example: {},
  current: async (_p, host) => ({ pendingReload: await unitsNeedingReload(host) }),
  preview: (_p, cur) => ({
    summary: 'Reload the systemd configuration (daemon-reload)',
    change: {
      reloads: 'every unit file and drop-in; generators (fstab, ...) run again',
      changed_on_disk: cur.pendingReload,
      text: cur.pendingReload.length ? `loads the changes on disk of ${cur.pendingReload.join(', ')}` : 'no loaded unit reports changes on disk; new unit files are found too',
    },
    sideEffects: ['running services keep running; changed settings apply to them as systemd allows (most at their next start)'],
  }),
  mechanism: () => [{ ...daemonReload(), noUndo: 'leaves_state' }],
});
