/**
 * The kernel module blacklist in /etc/modprobe.d: every file read, and Airlock's own
 * drop-ins 60-airlock-blacklist-MODULE.conf written and deleted (files from packages or
 * people are left alone).
 */
import { AirlockError } from '../../../protocol/errors.js';
import { action, unchanged } from '../../action.js';
import { fileDelete, fileScan, fileWrite } from '../../mechanism.js';
import { params } from '../../params.js';
import { blacklistFile, BOOT_CRITICAL_MODULES, canonical, confFiles, moduleName, readModule } from './module-state.js';
import { exact } from '../../rollback.js';

export const listModuleBlacklist = action({
  name: 'ListModuleBlacklist',
  family: 'kernel',
  description: 'Show the kernel module blacklist: every *.conf file in /etc/modprobe.d, in full (blacklist, install, options and alias lines).',
  risk: 'low',
  readOnly: true,
  // Sensitive: the modprobe.d files in full (install commands included).
  sensitive: true,
  reachesNetwork: false,
  params: params({}),
  files: ['/etc/modprobe.d/*'],
  example: {},
  current: async (_p, host) => confFiles(host),
  preview: (_p, files) => ({ summary: `Read the ${files.length} configuration files in /etc/modprobe.d`, change: null }),
  mechanism: (_p, files) => files.map(fileScan),
});

export const blacklistModule = action({
  name: 'BlacklistModule',
  family: 'kernel',
  description: 'Keep a kernel module from loading by writing /etc/modprobe.d/60-airlock-blacklist-MODULE.conf (blacklist, and install /bin/false); takes effect at the next load or boot.',
  risk: 'high',
  readOnly: false,
  // Only its drop-in changes (modprobe reads it at the next load): the file is restored, and probed, as every file step's.
  rollback: exact(),
  runsPrograms: false,
  params: params({ module: moduleName }),
  files: ['/etc/modprobe.d/60-airlock-blacklist-*.conf'],
  example: { module: 'usb_storage' },
  current: async ({ module }, host) => readModule(host, module),
  check: ({ module }, cur) => {
    const m = canonical(module);
    if (BOOT_CRITICAL_MODULES.includes(m)) throw new AirlockError('authorization', 'boot_critical_module', `${m} may be needed to reach the disks, root file system or network at boot; Airlock does not blacklist it`, 'a person does this from a console');
    if (cur.airlockFile) return unchanged(`${m} is already blacklisted by ${blacklistFile(m)}`);
  },
  preview: ({ module }, cur) => {
    const m = canonical(module);
    return {
      summary: `Blacklist the kernel module ${m}`,
      change: { module: m, path: blacklistFile(m), text: `writes ${blacklistFile(m)} with "blacklist ${m}" and "install ${m} /bin/false"` },
      sideEffects: [`modprobe ${m} fails from now on, and nothing loads it automatically (by alias or as a dependency)`],
      warnings: [
        cur.loaded ? `${m} is loaded now and stays loaded until it is unloaded (UnloadModule) or the host reboots` : 'takes effect at the next load attempt or boot',
        cur.builtin ? `${m} is built into this kernel: a blacklist does not affect it` : '',
        cur.updateInitramfs ? 'the initramfs has its own copy of modprobe.d: run update-initramfs -u for the blacklist to apply in early boot (Airlock does not)' : '',
        cur.elsewhere.length ? `also named in ${cur.elsewhere.join(', ')}` : '',
      ].filter(Boolean),
    };
  },
  mechanism: ({ module }) => {
    const m = canonical(module);
    return [fileWrite(blacklistFile(m), `# Written by Airlock (BlacklistModule); UnblacklistModule removes it.\nblacklist ${m}\ninstall ${m} /bin/false\n`, { mode: 0o644 })];
  },
});

export const unblacklistModule = action({
  name: 'UnblacklistModule',
  family: 'kernel',
  description: "Remove Airlock's own blacklist file /etc/modprobe.d/60-airlock-blacklist-MODULE.conf (files from packages or people are left alone).",
  risk: 'high',
  readOnly: false,
  // The drop-in deleted is written back as it was; nothing else changes until the next load.
  rollback: exact(),
  runsPrograms: false,
  params: params({ module: moduleName }),
  files: ['/etc/modprobe.d/60-airlock-blacklist-*.conf'],
  example: { module: 'usb_storage' },
  current: async ({ module }, host) => readModule(host, module),
  check: ({ module }, cur) => {
    const m = canonical(module);
    // Blacklisted by a file that is not Airlock's: the module stays blacklisted, which this request cannot change.
    if (!cur.airlockFile && cur.elsewhere.length) {
      throw new AirlockError('conflict', 'not_blacklisted_by_airlock', `Airlock has no blacklist file for ${m}; it is named in ${cur.elsewhere.join(', ')}, which Airlock does not change`);
    }
    if (!cur.airlockFile) return unchanged(`${m} is not blacklisted`);
  },
  preview: ({ module }, cur) => {
    const m = canonical(module);
    return {
      summary: `Remove Airlock's blacklist of ${m}`,
      change: { module: m, path: blacklistFile(m), text: `deletes ${blacklistFile(m)}` },
      sideEffects: [`${m} can be loaded again (by modprobe, an alias or a dependency); it is not loaded now`],
      warnings: cur.elsewhere.length ? [`${m} stays blacklisted by ${cur.elsewhere.join(', ')}`] : [],
    };
  },
  mechanism: ({ module }) => [fileDelete(blacklistFile(module))],
});
