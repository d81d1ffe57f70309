/**
 * Services, boot-time state: enable and disable a service or timer at boot (the links
 * its [Install] section names), mask and unmask it. Each change is undone by its opposite;
 * enable and disable act on the units of Also= too, whose enablement the undo puts back.
 */
import { AirlockError } from '../../../protocol/errors.js';
import { action, type Host, unchanged } from '../../action.js';
import { params, serviceUnit } from '../../params.js';
import { describeState, isRunning, readUnit, refuseMasked, refuseMissing, refuseProtected } from '../../lib/systemd.js';
import { command, type CommandStep } from '../../mechanism.js';
import { unitEnablement } from '../../lib/unit-probes.js';
import { dependents, lifelineWarnings, systemctl } from './unit-changes.js';
import { isUnitName } from './cascade.js';
import { exact } from '../../rollback.js';

/** The [Install] section of a unit as `systemctl cat` prints it (drop-ins included): what enable links and disable unlinks. */
export interface InstallSection {
  wantedBy: string[];
  requiredBy: string[];
  alias: string[];
  also: string[];
}

export function parseInstall(text: string): InstallSection {
  const out: InstallSection = { wantedBy: [], requiredBy: [], alias: [], also: [] };
  const keys: Record<string, keyof InstallSection> = { WantedBy: 'wantedBy', RequiredBy: 'requiredBy', Alias: 'alias', Also: 'also' };
  let section = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const head = /^\[(.+)\]$/.exec(line);
    if (head) {
      section = head[1]!;
      continue;
    }
    const eq = line.indexOf('=');
    const key = keys[line.slice(0, eq).trim()];
    if (section !== 'Install' || eq < 0 || !key) continue;
    const values = line.slice(eq + 1).trim().split(/\s+/).filter(Boolean);
    if (values.length === 0) out[key] = []; // an empty assignment resets the list
    for (const v of values) if (!out[key].includes(v)) out[key].push(v);
  }
  return out;
}

async function readInstall(host: Host, unit: string): Promise<InstallSection> {
  const r = await host.run('systemctl', ['cat', '--no-pager', '--', unit]);
  return parseInstall(r.code === 0 ? r.stdout : '');
}

/**
 * The unit, its [Install] section, and the enablement of each unit its Also= names (which
 * `systemctl enable` enables and `disable` disables with it, whatever they were before).
 * Only a name as systemd names units goes into an undo's argv.
 */
async function readBootState(host: Host, unit: string) {
  const install = await readInstall(host, unit);
  const also: Record<string, string> = {};
  for (const u of install.also.filter(isUnitName)) also[u] = (await host.run('systemctl', ['is-enabled', '--', u])).stdout.trim();
  return { ...(await readUnit(host, unit)), install, also };
}
type BootState = Awaited<ReturnType<typeof readBootState>>;

/** The Also= units in this enablement before the change. */
const alsoIn = (cur: BootState, state: string) => Object.keys(cur.also).filter((u) => cur.also[u] === state);

/**
 * An enable or disable of a unit whose Also= units were not all as the undo would leave them:
 * first a read of their enablement, carrying the undo that puts them back. Undos run last
 * first, so it runs after the unit's own undo (which enables or disables them along with it).
 */
function withAlso(step: CommandStep, verb: 'enable' | 'disable', units: string[]): CommandStep[] {
  if (units.length === 0) return [step];
  return [{ ...command('systemctl', ['is-enabled', '--', ...units], { okCodes: [0, 1] }), undo: command('systemctl', [verb, '--', ...units]) }, step];
}

/** Probes: the enablement of the unit and of each Also= unit. */
const bootProbes = ({ unit }: { unit: string }, cur: BootState) => [unit, ...Object.keys(cur.also)].map(unitEnablement);

/** The symbolic links `systemctl enable` creates for this [Install] section (and `disable` removes). */
function installLinks(unit: string, inst: InstallSection): string[] {
  return [
    ...inst.wantedBy.map((t) => `/etc/systemd/system/${t}.wants/${unit}`),
    ...inst.requiredBy.map((t) => `/etc/systemd/system/${t}.requires/${unit}`),
    ...inst.alias.map((a) => `/etc/systemd/system/${a}`),
  ];
}

const ENABLE_FROM = ['disabled', 'indirect'];

/** What an undo of enable or disable does, for the preview: the opposite on the unit and its Also= units, then those that were `before` put back. */
function undoSays(unit: string, cur: BootState, opposite: 'enables' | 'disables', before: 'enabled' | 'disabled'): string {
  const again = alsoIn(cur, before);
  const back = { enabled: 'enables', disabled: 'disables' }[before];
  return `an undo ${opposite} ${unit}${cur.install.also.length ? ` and ${cur.install.also.join(', ')}` : ''}${again.length ? `, then ${back} ${again.join(', ')} again (${before} before)` : ''}`;
}

export const enableService = action({
  name: 'EnableService',
  family: 'services',
  description: 'Enable a service or timer at boot by creating the links its [Install] section names (does not start it now).',
  risk: 'medium',
  // Undone by disable, then the Also= units that were enabled before enabled again.
  rollback: exact(bootProbes),
  readOnly: false,
  runsPrograms: true,
  params: params({ unit: serviceUnit }),
  files: [],
  example: { unit: 'nginx.service' },
  current: ({ unit }, host) => readBootState(host, unit),
  check: ({ unit }, cur) => {
    refuseProtected('enable', unit, cur);
    refuseMissing(unit, cur);
    refuseMasked(unit, cur, 'enable');
    if (cur.unitFile === 'enabled' || cur.unitFile === 'enabled-runtime') return unchanged(`${unit} is already enabled`);
    if (!ENABLE_FROM.includes(cur.unitFile) || installLinks(unit, cur.install).length + cur.install.also.length === 0) {
      throw new AirlockError('conflict', 'not_installable', `${unit} cannot be enabled: its unit file state is ${cur.unitFile || 'unknown'} and it names no WantedBy=, RequiredBy= or Alias= to link`, 'a static unit starts when another unit pulls it in');
    }
  },
  preview: ({ unit }, cur) => ({
    summary: `Enable ${unit} at boot`,
    change: {
      unit,
      unit_file_state: { from: cur.unitFile, to: 'enabled' },
      creates_links: installLinks(unit, cur.install),
      also_enables: cur.install.also,
      undo: undoSays(unit, cur, 'disables', 'enabled'),
    },
    sideEffects: [
      `${unit} starts at boot${cur.install.wantedBy.length ? ` with ${cur.install.wantedBy.join(', ')}` : ''}`,
      isRunning(cur) ? `it is already running (${describeState(cur)})` : `it is not started now (${describeState(cur)}); StartService starts it`,
    ],
  }),
  mechanism: ({ unit }, cur) => withAlso({ ...systemctl('enable', unit), undo: systemctl('disable', unit) }, 'enable', alsoIn(cur, 'enabled')),
  effects: ({ unit }) => [{ kind: 'unit', unit, enabled: true }],
});

export const disableService = action({
  name: 'DisableService',
  family: 'services',
  description: 'Stop a service or timer from starting at boot by removing its [Install] links (does not stop it now).',
  risk: 'medium',
  // Undone by enable, then the Also= units that were disabled before disabled again.
  rollback: exact(bootProbes),
  readOnly: false,
  runsPrograms: false,
  params: params({ unit: serviceUnit }),
  files: [],
  example: { unit: 'nginx.service' },
  current: ({ unit }, host) => readBootState(host, unit),
  check: ({ unit }, cur) => {
    refuseProtected('disable', unit, cur);
    refuseMissing(unit, cur);
    refuseMasked(unit, cur, 'disable');
    if (cur.unitFile !== 'enabled') {
      return unchanged(`${unit} is not enabled (its unit file state is ${cur.unitFile || 'unknown'})`);
    }
  },
  preview: ({ unit }, cur) => ({
    summary: `Disable ${unit} at boot`,
    change: {
      unit,
      unit_file_state: { from: cur.unitFile, to: 'disabled' },
      removes_links: installLinks(unit, cur.install),
      also_disables: cur.install.also,
      undo: undoSays(unit, cur, 'enables', 'disabled'),
    },
    sideEffects: [
      `${unit} no longer starts at boot, unless another unit pulls it in`,
      isRunning(cur) ? `it keeps running now (${describeState(cur)}); StopService stops it` : `it is not running (${describeState(cur)})`,
    ],
    warnings: lifelineWarnings('disable', unit, cur),
  }),
  mechanism: ({ unit }, cur) => withAlso({ ...systemctl('disable', unit), undo: systemctl('enable', unit) }, 'disable', alsoIn(cur, 'disabled')),
});

export const maskService = action({
  name: 'MaskService',
  family: 'services',
  description: 'Mask a service or timer (link /etc/systemd/system/UNIT to /dev/null) so nothing can start it, by hand or as a dependency.',
  risk: 'high',
  // Undone by unmask (the link to /dev/null removed); its [Install] links were never touched.
  rollback: exact<{ unit: string }, unknown>(({ unit }) => [unitEnablement(unit)]),
  readOnly: false,
  runsPrograms: false,
  params: params({ unit: serviceUnit }),
  files: [],
  example: { unit: 'nginx.service' },
  current: ({ unit }, host) => readUnit(host, unit),
  check: ({ unit }, cur) => {
    refuseProtected('mask', unit, cur);
    refuseMissing(unit, cur);
    if (cur.load === 'masked' || cur.unitFile.startsWith('masked')) return unchanged(`${unit} is already masked`);
    if (cur.fragmentPath === `/etc/systemd/system/${unit}`) {
      throw new AirlockError('conflict', 'unit_file_in_etc', `${unit} is defined by /etc/systemd/system/${unit} itself; masking would have to replace that file`, 'DisableService and StopService keep it from running');
    }
  },
  preview: ({ unit }, cur) => ({
    summary: `Mask ${unit}`,
    change: { unit, creates_link: { path: `/etc/systemd/system/${unit}`, target: '/dev/null' }, unit_file_state: { from: cur.unitFile, to: 'masked' } },
    sideEffects: [
      `nothing can start ${unit} until UnmaskService: not a person, not boot, not another unit that requires it`,
      ...(dependents(cur).length ? [`units that require it cannot start either: ${dependents(cur).join(', ')}`] : []),
    ],
    warnings: [
      ...(isRunning(cur) ? [`${unit} is ${describeState(cur)} and keeps running until stopped: StopService stops it`] : []),
      ...lifelineWarnings('mask', unit, cur),
    ],
  }),
  mechanism: ({ unit }) => [{ ...systemctl('mask', unit), undo: systemctl('unmask', unit) }],
});

export const unmaskService = action({
  name: 'UnmaskService',
  family: 'services',
  description: 'Unmask a masked service or timer (remove its link to /dev/null) so it can be started again.',
  risk: 'medium',
  // Undone by mask: the link to /dev/null made again.
  rollback: exact<{ unit: string }, unknown>(({ unit }) => [unitEnablement(unit)]),
  readOnly: false,
  runsPrograms: false,
  params: params({ unit: serviceUnit }),
  files: [],
  example: { unit: 'nginx.service' },
  current: ({ unit }, host) => readUnit(host, unit),
  check: ({ unit }, cur) => {
    refuseProtected('unmask', unit, cur);
    if (cur.unitFile === 'masked-runtime') {
      throw new AirlockError('conflict', 'masked_at_runtime', `${unit} is masked only until the next boot (in /run/systemd); Airlock unmasks persistent masks only`);
    }
    if (cur.load !== 'masked' && cur.unitFile !== 'masked') return unchanged(`${unit} is not masked`);
  },
  preview: ({ unit }, cur) => ({
    summary: `Unmask ${unit}`,
    change: { unit, removes_link: { path: `/etc/systemd/system/${unit}`, target: '/dev/null' }, text: `${unit} can be started again; its enablement at boot returns to what its links say` },
    sideEffects: [isRunning(cur) ? `it is ${describeState(cur)}` : `it is not started now (${describeState(cur)}); StartService starts it`],
  }),
  mechanism: ({ unit }) => [{ ...systemctl('unmask', unit), undo: systemctl('mask', unit) }],
});
