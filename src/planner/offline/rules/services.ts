/** Rules of the services family: systemd units, their state, boot enablement and drop-ins. */
import { missing, rule, step, steps, takeUnit, takeUnits, type Built, type Context } from '../rule.js';
import { takeNumberAfter, takeNumberBefore, takeSize, type Clause } from '../words.js';

const UNIT_WORDS = ['service', 'services', 'unit', 'daemon'];

/** One step per unit named: "restart nginx and php-fpm". */
function perUnit(action: string, verb: string, timerAction?: string) {
  return (c: Clause, ctx: Context): Built => {
    const units = takeUnits(c, ctx);
    if (units.length === 0) return missing(`which service to ${verb} (e.g. nginx or nginx.service)`);
    return steps(...units.map((unit) => step(timerAction !== undefined && unit.endsWith('.timer') ? timerAction : action, { unit }, `${verb} ${unit}`)));
  };
}

const RESTART_POLICIES: Record<string, string> = { always: 'always', failure: 'on-failure', 'on-failure': 'on-failure', crash: 'on-failure', crashes: 'on-failure', dies: 'on-failure', abnormal: 'on-abnormal', never: 'no' };

export const servicesRules = [
  rule('services.restart', [['restart', 'bounce', 'restarts']], perUnit('RestartService', 'restart'), { also: UNIT_WORDS }),
  rule('services.start', [['start', 'launch']], perUnit('StartService', 'start'), { also: UNIT_WORDS }),
  rule('services.stop', [['stop', 'shut down', 'shutdown']], perUnit('StopService', 'stop'), { also: UNIT_WORDS }),
  rule('services.reload', [['reload']], perUnit('ReloadService', 'reload'), { also: [...UNIT_WORDS, 'config', 'configuration', 'its'] }),
  rule('services.enable', [['enable']], perUnit('EnableService', 'enable at boot', 'EnableTimer'), { also: [...UNIT_WORDS, 'at boot', 'on boot', 'boot', 'startup'] }),
  rule('services.enable-boot', [['start', 'starts', 'run', 'runs', 'launch', 'come up', 'comes up'], ['at boot', 'on boot', 'automatically at boot', 'at startup', 'on startup']], perUnit('EnableService', 'enable at boot', 'EnableTimer'), { also: [...UNIT_WORDS, 'make sure', 'sure', 'always'], unless: ["won't", 'not', "doesn't", "don't", 'never'] }),
  rule('services.disable', [['disable']], perUnit('DisableService', 'disable at boot', 'DisableTimer'), { also: [...UNIT_WORDS, 'at boot', 'on boot', 'boot', 'startup'] }),
  rule('services.mask', [['mask']], perUnit('MaskService', 'mask'), { also: UNIT_WORDS }),
  rule('services.unmask', [['unmask']], perUnit('UnmaskService', 'unmask'), { also: UNIT_WORDS }),
  rule('services.status', [['status', 'running', 'active', 'alive', 'up', 'state', 'healthy', 'down']], (c, ctx) => {
    const units = takeUnits(c, ctx);
    if (units.length === 0) return missing('which service to look at');
    return steps(...units.map((unit) => step('ServiceStatus', { unit }, `the state of ${unit}`)));
  }, { needs: (c) => c.tokens.some((t) => c.isName(t) || /\.(service|timer|socket)$/.test(t.low)), also: [...UNIT_WORDS, 'check', 'show', 'is', 'of'] }),
  rule('services.list', [['list', 'show', 'which', 'what', 'all'], ['services', 'daemons', 'units']], () => steps(step('ListServices', {}, 'the service units and their state')), { also: ['running', 'are', 'loaded', 'installed'], unless: ['failed', 'failing', 'files'] }),
  rule('services.failed', [['failed', 'failing', 'broken', 'crashed', 'dead']], () => steps(step('FailedUnits', {}, 'the units systemd reports as failed')), { also: [...UNIT_WORDS, 'units', 'what', 'which', 'show', 'list', 'any', 'since boot'] }),
  rule('services.timers', [['timers', 'systemd timers']], () => steps(step('ListTimers', {}, 'every timer and its next run')), { also: ['list', 'show', 'which', 'what', 'next', 'scheduled'], unless: ['create', 'remove', 'delete', 'add'] }),
  rule('services.restart-policy', [['restart', 'restarts', 'restarted', 'come back', 'respawn'], ['automatically', 'on failure', 'on-failure', 'always', 'policy', 'if it crashes', 'when it crashes', 'crashes', 'dies', 'when it dies']], (c, ctx) => {
    let restart = 'on-failure';
    for (const [word, policy] of Object.entries(RESTART_POLICIES)) if (c.take(word)) { restart = policy; break; }
    const restartSec = takeNumberBefore(c, ['seconds', 'second', 's', 'secs']) ?? takeNumberAfter(c, ['after', 'every']);
    const unit = takeUnit(c, ctx);
    if (unit === null) return missing('which service should restart by itself');
    return steps(step('SetRestartPolicy', { unit, restart, ...(restartSec !== null && restartSec <= 3600 ? { restartSec } : {}) }, `restart ${unit} ${restart}`));
  }, { also: [...UNIT_WORDS, 'make', 'set', 'when', 'if', 'it', 'crash', 'after'] }),
  rule('services.limits', [['limit', 'cap', 'restrict', 'constrain', 'max', 'maximum'], ['memory', 'ram', 'cpu', 'tasks', 'open files', 'files', 'file descriptors']], (c, ctx) => {
    const params: Record<string, unknown> = {};
    const size = takeSize(c);
    if (size !== null && size.unit !== 'K') params.memoryMax = `${size.value}${size.unit}`;
    const pct = c.takeToken((t) => /^\d{1,5}%$/.test(t.low));
    if (pct !== null) params.cpuQuota = Number(pct.slice(0, -1));
    const nofile = takeNumberBefore(c, ['files', 'file', 'descriptors']);
    if (nofile !== null) params.limitNofile = nofile;
    const unit = takeUnit(c, ctx);
    if (unit === null) return missing('which service to limit');
    if (Object.keys(params).length === 0) return missing('the limit itself (e.g. 512M of memory, 50% CPU)');
    return steps(step('SetResourceLimits', { unit, ...params }, `limit ${unit}`));
  }, { also: [...UNIT_WORDS, 'to', 'of', 'at', 'use', 'usage'] }),
  rule('services.overrides', [['overrides', 'override', 'drop-ins', 'drop-in', 'dropins']], (c, ctx) => {
    const reset = c.takeAny(['reset', 'remove', 'delete', 'undo', 'drop', 'clear']) !== null;
    const unit = takeUnit(c, ctx);
    if (unit === null) return missing('which unit');
    return steps(step(reset ? 'ResetServiceOverrides' : 'ShowServiceOverrides', { unit }, `${reset ? 'remove Airlock\'s drop-ins of' : 'the drop-ins of'} ${unit}`));
  }, { also: [...UNIT_WORDS, 'show', 'list'] }),
  rule('services.reset-limits', [['reset', 'remove', 'undo', 'clear', 'drop'], ['limits', 'restart policy', 'resource limits']], (c, ctx) => {
    const unit = takeUnit(c, ctx);
    return unit === null ? missing('which unit') : steps(step('ResetServiceOverrides', { unit }, `remove Airlock's drop-ins of ${unit}`));
  }, { also: UNIT_WORDS }),
  rule('services.unit-file', [['unit file', 'unit-file', 'service file', 'systemctl cat']], (c, ctx) => {
    const unit = takeUnit(c, ctx);
    return unit === null ? missing('which unit') : steps(step('ShowUnitFile', { unit }, `the unit file of ${unit}`));
  }, { also: ['show', 'print', 'cat', 'read', 'the'], unless: ['files', 'list'] }),
  rule('services.unit-files', [['unit files', 'installed units', 'enabled units', 'enabled services', 'installed services']], (c) => {
    const type = c.takeAny(['service', 'timer', 'socket', 'target', 'mount', 'path']);
    return steps(step('ListUnitFiles', type === null ? {} : { type }, 'installed unit files and their enablement'));
  }, { also: ['list', 'show', 'which', 'what', 'all'] }),
  rule('services.daemon-reload', [['daemon-reload', 'daemon reload', 'reload systemd', 'reload units', 'reload unit files']], () => steps(step('DaemonReload', {}, 'make systemd read its unit files again')), { also: ['systemctl', 'run', 'do'] }),
];
