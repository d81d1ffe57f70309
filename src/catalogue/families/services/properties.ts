/**
 * Unit properties and daemon-reload, as the unit configuration actions of the services
 * family read and run them: some `systemctl show` properties of a unit, the units whose
 * files changed on disk since systemd last read them, and `systemctl daemon-reload`.
 */
import { AirlockError } from '../../../protocol/errors.js';
import type { Host } from '../../action.js';
import { command, type CommandStep } from '../../mechanism.js';
import { parseShow } from '../../lib/systemd.js';

/** The read of some properties of a unit: a state reader here, and a step showing the values before and after a change. */
export const showValues = (unit: string, props: string[]): CommandStep => command('systemctl', ['show', '--no-pager', '-p', props.join(','), '--', unit]);

/** Some properties of a unit as `systemctl show` reports them ('' when it reports none). */
export async function showProperties(host: Host, unit: string, props: string[]): Promise<Record<string, string>> {
  const show = showValues(unit, props);
  const r = await host.run(show.program, show.args);
  if (r.code !== 0) throw new AirlockError('execution', 'unit_unreadable', `systemctl could not read ${props.join(', ')} of ${unit} (exit status ${r.code})`);
  const kv = parseShow(r.stdout);
  return Object.fromEntries(props.map((p) => [p, kv.get(p) ?? '']));
}

/** Loaded units whose files changed on disk since systemd last read them (NeedDaemonReload=yes). */
export async function unitsNeedingReload(host: Host): Promise<string[]> {
  // systemctl matches the pattern against the loaded units itself; no shell is involved.
  const r = await host.run('systemctl', ['show', '--no-pager', '-p', 'Id,NeedDaemonReload', '--', '*']);
  if (r.code !== 0) return [];
  return r.stdout
    .split('\n\n')
    .map(parseShow)
    .filter((kv) => kv.get('NeedDaemonReload') === 'yes')
    .map((kv) => kv.get('Id') ?? '')
    .filter(Boolean)
    .sort();
}

export const daemonReload = (): CommandStep => command('systemctl', ['daemon-reload']);

/** What a daemon-reload does, for the preview: it also loads what others changed on disk. */
export const reloadEffect = (pending: string[]) =>
  `systemd reloads every unit file (daemon-reload)${pending.length ? `, which also loads the changes on disk not yet loaded of: ${pending.join(', ')}` : ''}`;
