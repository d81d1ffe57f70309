/**
 * Loaded kernel modules: listed (lsmod, or the built-in ones in /sys/module), and loaded
 * with modprobe, `modprobe -r` as its undo. The project's machines run a kernel without
 * loadable modules, so in the test bed LoadModule is exercised up to its typed refusal
 * (no_loadable_modules) and its argv is checked in the unit tests.
 */
import { AirlockError } from '../../../protocol/errors.js';
import { action, unchanged } from '../../action.js';
import { command } from '../../mechanism.js';
import { params } from '../../params.js';
import { blacklistFile, canonical, dependencies, moduleName, readModule, type ModuleState } from './module-state.js';
import { exact } from '../../rollback.js';

export const listKernelModules = action({
  name: 'ListKernelModules',
  family: 'kernel',
  description: 'List the loaded kernel modules with size, use count and users (lsmod); on a kernel without loadable modules, the built-in ones in /sys/module.',
  risk: 'low',
  readOnly: true,
  sensitive: false,
  reachesNetwork: false,
  params: params({}),
  files: [],
  example: {},
  current: async (_p, host) => ({ loadable: (await host.stat('/proc/modules')) !== null, builtin: (await host.stat('/sys/module'))?.isDir ?? false }),
  check: (_p, cur) => {
    if (!cur.loadable && !cur.builtin) throw new AirlockError('unsupported_platform', 'no_modules', 'this kernel exposes neither /proc/modules nor /sys/module');
  },
  preview: (_p, cur) => ({
    summary: cur.loadable ? 'List the loaded kernel modules (lsmod)' : 'This kernel has no loadable module support: list the built-in modules in /sys/module',
    change: null,
  }),
  // lsmod, not /proc/modules: read as root, /proc/modules carries kernel addresses (a KASLR leak).
  mechanism: (_p, cur) => [cur.loadable ? command('lsmod', []) : command('ls', ['-1', '--', '/sys/module'])],
});

// ---------------------------------------------------------------- load and unload

function refuseNoModules(cur: ModuleState): void {
  if (!cur.loadable) {
    throw new AirlockError('unsupported_platform', 'no_loadable_modules', 'this kernel has no loadable module support (/proc/modules is absent): modules can be neither loaded nor unloaded', 'ListKernelModules lists the built-in ones');
  }
}

const modprobeLoad = (m: string) => command('modprobe', ['--', m]);
const modprobeUnload = (m: string) => command('modprobe', ['-r', '--', m]);

export const loadModule = action({
  name: 'LoadModule',
  family: 'kernel',
  description: 'Load a kernel module and its dependencies with modprobe, until the next reboot. Refused for a blacklisted, loaded or built-in module, or a kernel without loadable modules.',
  risk: 'high',
  readOnly: false,
  runsPrograms: false,
  // modprobe -r unloads it and the dependencies left unused, then those that were loaded before are loaded again.
  // Each reads as loaded or not in /sys/module (lsmod's use counts change with use).
  rollback: exact((_p, cur) => [cur.module, ...cur.deps].map((m) => ({ file: `/sys/module/${m}/initstate` }))),
  params: params({ module: moduleName }),
  files: [],
  example: { module: 'wireguard' },
  current: async ({ module }, host) => {
    const state = await readModule(host, module);
    const shown = state.loadable ? await host.run('modprobe', ['--show-depends', '--', canonical(module)]) : null;
    return { ...state, module: canonical(module), deps: shown?.code === 0 ? dependencies(shown.stdout, module) : [] };
  },
  check: ({ module }, cur) => {
    const m = canonical(module);
    refuseNoModules(cur);
    if (cur.loaded) return unchanged(`${m} is already loaded`);
    if (cur.builtin) throw new AirlockError('conflict', 'built_in', `${m} is built into this kernel: there is nothing to load`);
    if (cur.airlockFile || cur.elsewhere.length) {
      throw new AirlockError('conflict', 'module_blacklisted', `${m} is blacklisted by ${[...(cur.airlockFile ? [blacklistFile(m)] : []), ...cur.elsewhere].join(', ')}`, 'remove the blacklist first (UnblacklistModule for Airlock\'s own)');
    }
  },
  preview: ({ module }) => {
    const m = canonical(module);
    return {
      summary: `Load the kernel module ${m}`,
      change: { module: m, command: `modprobe -- ${m}` },
      sideEffects: [`${m} and the modules it depends on run in the kernel with full privileges`],
      warnings: ['not persistent: the module is not loaded again after a reboot'],
    };
  },
  mechanism: ({ module }, cur) => {
    const m = canonical(module);
    // modprobe -r also unloads a dependency that was loaded before but is unused: a read before the load carries their reload, which runs after.
    const before = cur.deps.filter((d) => cur.loadedModules.includes(d));
    const reload = before.length ? [command('modprobe', ['--show-depends', '--', m], { undo: command('modprobe', ['-a', '--', ...before]) })] : [];
    return [...reload, { ...modprobeLoad(m), undo: modprobeUnload(m) }];
  },
});
