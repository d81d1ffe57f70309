/**
 * Drop-ins (family 'services'): every drop-in of a unit shown (those any user may read),
 * and Airlock's own ones (airlock-*.conf) deleted again, then daemon-reload; drop-ins of
 * packages and people stay.
 */
import { posix } from 'node:path';
import { AirlockError } from '../../../protocol/errors.js';
import { action, type Host, unchanged } from '../../action.js';
import { command, fileDelete } from '../../mechanism.js';
import { params, serviceUnit, unitName } from '../../params.js';
import { describeState, readUnit, refuseMissing, refuseProtected, type UnitState } from '../../lib/systemd.js';
import { listDirectory } from '../../lib/host-files.js';
import { dropInDir, OWN_DROPIN, OWN_DROPINS_GLOB, propertiesOf, reloadedChange, sectionKeys, UNIT_DIR } from './dropins.js';
import { reloadEffect, showProperties, unitsNeedingReload } from './properties.js';
import { readUnitFiles } from './unit-files.js';
import { unitProperties } from '../../lib/unit-probes.js';
import { exact } from '../../rollback.js';

export const showServiceOverrides = action({
  name: 'ShowServiceOverrides',
  family: 'services',
  description: "List a unit's drop-ins (from /etc, /run and /usr/lib, in the order systemd applies them) and print those any user may read, line by line.",
  risk: 'low',
  readOnly: true,
  // Sensitive: drop-in contents: Environment= lines may carry secrets.
  sensitive: true,
  reachesNetwork: false,
  params: params({ unit: unitName }),
  files: [],
  example: { unit: 'nginx.service' },
  current: ({ unit }, host) => readUnitFiles(host, unit),
  check: ({ unit }, cur) => {
    refuseMissing(unit, cur);
    if (cur.dropIns.length === 0) throw new AirlockError('conflict', 'no_overrides', `${unit} has no drop-ins: its unit file alone configures it`, 'ShowUnitFile prints it');
  },
  preview: ({ unit }, cur) => ({
    summary: `Show the ${cur.dropIns.length} drop-in${cur.dropIns.length === 1 ? '' : 's'} of ${unit}`,
    change: null,
    warnings: cur.hidden.filter((p) => cur.dropIns.some((d) => d.path === p)).map((p) => `${p} is readable by root only and is not shown`),
  }),
  // Read as nobody: a drop-in only root may read (Environment= secrets) stays unread; grep exits 2 for it and shows the rest.
  mechanism: (_p, cur) => [
    command('grep', ['--with-filename', '--line-number', '--regexp=', '--', ...cur.dropIns.map((d) => d.path)], { unprivileged: true, okCodes: cur.hidden.length ? [0, 1, 2] : [0, 1] }),
  ],
});

interface OwnDropIns extends UnitState {
  dir: string;
  files: Array<{ path: string; content: string }>;
  /** Effective values now of the keys those files set. */
  values: Record<string, string>;
  pendingReload: string[];
}

async function readOwnDropIns(host: Host, unit: string): Promise<OwnDropIns> {
  const u = await readUnit(host, unit);
  const dir = dropInDir(unit);
  const names = ((await listDirectory(host, dir)) ?? []).filter((n) => OWN_DROPIN.test(n)).sort();
  const files: OwnDropIns['files'] = [];
  for (const name of names) {
    const content = await host.readFile(`${dir}/${name}`).catch(() => null);
    if (content !== null) files.push({ path: `${dir}/${name}`, content });
  }
  const keys = files.flatMap((f) => sectionKeys(f.content, 'Service'));
  return { ...u, dir, files, values: keys.length ? await showProperties(host, unit, propertiesOf(keys)) : {}, pendingReload: await unitsNeedingReload(host) };
}

/** The properties Airlock's drop-ins set, as `systemctl show` names them (Id when they set none: the read still shows the unit). */
const ownValues = (cur: OwnDropIns) => (Object.keys(cur.values).length ? Object.keys(cur.values) : ['Id']);

export const resetServiceOverrides = action({
  name: 'ResetServiceOverrides',
  family: 'services',
  description: `Delete Airlock's own drop-ins (${UNIT_DIR}/UNIT.d/airlock-*.conf: restart policy, resource limits) of a unit, then daemon-reload; drop-ins of packages and people stay.`,
  risk: 'medium',
  // The drop-ins are restored from their snapshots and systemd reloads them; probed: the values they set, as systemd applies them.
  rollback: exact<{ unit: string }, OwnDropIns>(({ unit }, cur) => [unitProperties(unit, ownValues(cur))]),
  readOnly: false,
  runsPrograms: false,
  params: params({ unit: serviceUnit }),
  files: [OWN_DROPINS_GLOB],
  example: { unit: 'nginx.service' },
  current: ({ unit }, host) => readOwnDropIns(host, unit),
  check: ({ unit }, cur) => {
    refuseProtected('reload', unit, cur); // aliases: the drop-ins live under the real name
    if (cur.files.length === 0) return unchanged(`${unit} has no Airlock drop-in in ${cur.dir}`);
  },
  preview: ({ unit }, cur) => ({
    summary: `Remove Airlock's drop-ins of ${unit}: ${cur.files.map((f) => posix.basename(f.path)).join(', ')}`,
    change: {
      unit,
      deletes: cur.files,
      settings_now: cur.values,
      after: `${unit} gets the values its unit file and other drop-ins set`,
      then: 'systemctl daemon-reload',
    },
    sideEffects: [reloadEffect(cur.pendingReload), `${unit} keeps running (${describeState(cur)}); a restart policy applies at its next exit, an open-files limit at its next start`],
  }),
  mechanism: ({ unit }, cur) => reloadedChange(unit, ownValues(cur), cur.files.map((f) => fileDelete(f.path))),
});
