/**
 * Kernel modules: the blacklist in /etc/modprobe.d (read, and Airlock's own drop-ins
 * 60-airlock-blacklist-MODULE.conf written and deleted). modprobe treats '-' and '_'
 * in a module name alike; Airlock writes the '_' form. LoadModule runs modprobe, with
 * `modprobe -r` as its undo. The project's machines run a kernel without loadable
 * modules, so in the test bed LoadModule is exercised up to its typed refusal
 * (no_loadable_modules) and its argv is checked in the unit tests.
 */
import { AirlockError } from '../../protocol/errors.js';
import { action, type Host } from '../action.js';
import { command, fileDelete, fileScan, fileWrite } from '../mechanism.js';
import { params, token } from '../params.js';
import { listDirectory } from '../lib/host-files.js';

export const moduleName = token(/^[a-z0-9_-]{1,56}$/, 'module name', 56);
const canonical = (m: string) => m.replace(/-/g, '_');

const MODPROBE_D = '/etc/modprobe.d';
export const blacklistFile = (m: string) => `${MODPROBE_D}/60-airlock-blacklist-${canonical(m)}.conf`;
const CONF_NAME = /^[A-Za-z0-9_.-]+\.conf$/;

/**
 * Modules the host needs to reach its disks and root file system: blacklisting one
 * (with `install ... /bin/false`) can leave it unbootable, so Airlock refuses.
 */
export const BOOT_CRITICAL_MODULES = ['ext4', 'xfs', 'btrfs', 'jbd2', 'nvme', 'nvme_core', 'sd_mod', 'scsi_mod', 'ahci', 'libata', 'libahci', 'virtio_blk', 'virtio_scsi', 'virtio_pci', 'virtio_net', 'dm_mod', 'dm_crypt', 'md_mod', 'raid1', 'overlay', 'loop', 'af_packet', 'unix', 'ipv6'];

/** The blacklist and install lines of one modprobe.d file, for the preview and for refusals. */
export function blacklistLines(text: string): string[] {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => /^(blacklist|install)\s/.test(l));
}

interface ModuleState {
  /** Loadable module support: /proc/modules exists. */
  loadable: boolean;
  /** The module (in '_' form) is loaded (lsmod) or built in (/sys/module without /proc/modules entry). */
  loaded: boolean;
  builtin: boolean;
  /** Airlock's own drop-in for it exists. */
  airlockFile: boolean;
  /** Other modprobe.d files that mention it in a blacklist or install line. */
  elsewhere: string[];
  updateInitramfs: boolean;
}

/** Parses lsmod: "Module Size Used by" then "name size count users,". */
export function parseLsmod(text: string): Map<string, { count: number; users: string[] }> {
  const out = new Map<string, { count: number; users: string[] }>();
  for (const line of text.split('\n').slice(1)) {
    const c = line.trim().split(/\s+/);
    if (c.length < 3) continue;
    out.set(c[0]!, { count: Number(c[2]) || 0, users: (c[3] ?? '').split(',').filter((u) => u && u !== '-') });
  }
  return out;
}

async function confFiles(host: Host): Promise<string[]> {
  return ((await listDirectory(host, MODPROBE_D)) ?? []).filter((n) => CONF_NAME.test(n)).sort().map((n) => `${MODPROBE_D}/${n}`);
}

export async function readModule(host: Host, module: string): Promise<ModuleState> {
  const m = canonical(module);
  const loadable = (await host.stat('/proc/modules')) !== null;
  let loaded = false;
  if (loadable) {
    const r = await host.run('lsmod', []);
    loaded = parseLsmod(r.code === 0 ? r.stdout : '').has(m);
  }
  const builtin = !loaded && (await host.stat(`/sys/module/${m}`)) !== null && (await host.stat(`/sys/module/${m}/initstate`)) === null;
  const own = blacklistFile(m);
  const elsewhere: string[] = [];
  for (const f of await confFiles(host)) {
    if (f === own) continue;
    const mentions = blacklistLines((await host.readFile(f)) ?? '').some((l) => canonical(l.split(/\s+/)[1] ?? '') === m);
    if (mentions) elsewhere.push(f);
  }
  return {
    loadable,
    loaded,
    builtin,
    airlockFile: (await host.stat(own)) !== null,
    elsewhere,
    updateInitramfs: (await host.stat('/usr/sbin/update-initramfs')) !== null,
  };
}

// ---------------------------------------------------------------- blacklist

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
  params: params({ module: moduleName }),
  files: ['/etc/modprobe.d/60-airlock-blacklist-*.conf'],
  example: { module: 'usb_storage' },
  current: async ({ module }, host) => readModule(host, module),
  check: ({ module }, cur) => {
    const m = canonical(module);
    if (BOOT_CRITICAL_MODULES.includes(m)) throw new AirlockError('authorization', 'boot_critical_module', `${m} may be needed to reach the disks, root file system or network at boot; Airlock does not blacklist it`, 'a person does this from a console');
    if (cur.airlockFile) throw new AirlockError('conflict', 'already_blacklisted', `${m} is already blacklisted by ${blacklistFile(m)}`);
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
  params: params({ module: moduleName }),
  files: ['/etc/modprobe.d/60-airlock-blacklist-*.conf'],
  example: { module: 'usb_storage' },
  current: async ({ module }, host) => readModule(host, module),
  check: ({ module }, cur) => {
    const m = canonical(module);
    if (!cur.airlockFile) {
      throw new AirlockError('conflict', 'not_blacklisted_by_airlock', `Airlock has no blacklist file for ${m}${cur.elsewhere.length ? `; it is named in ${cur.elsewhere.join(', ')}, which Airlock does not change` : ''}`);
    }
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
  rollback: true,
  params: params({ module: moduleName }),
  files: [],
  example: { module: 'wireguard' },
  current: async ({ module }, host) => readModule(host, module),
  check: ({ module }, cur) => {
    const m = canonical(module);
    refuseNoModules(cur);
    if (cur.loaded) throw new AirlockError('conflict', 'already_loaded', `${m} is already loaded`);
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
  mechanism: ({ module }) => {
    const m = canonical(module);
    return [{ ...modprobeLoad(m), undo: modprobeUnload(m) }];
  },
});

