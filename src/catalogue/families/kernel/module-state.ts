/**
 * Kernel modules as the module actions see them: the name Airlock accepts (modprobe treats
 * '-' and '_' alike; Airlock writes the '_' form), its own blacklist drop-ins
 * (/etc/modprobe.d/60-airlock-blacklist-MODULE.conf), the modules it never blacklists, and
 * one module's state: loaded, built in, blacklisted here or elsewhere.
 */
import type { Host } from '../../action.js';
import { token } from '../../params.js';
import { listDirectory } from '../../lib/host-files.js';

export const moduleName = token(/^[a-z0-9_-]{1,56}$/, 'module name', 56);
export const canonical = (m: string) => m.replace(/-/g, '_');

export const MODPROBE_D = '/etc/modprobe.d';
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

export interface ModuleState {
  /** Loadable module support: /proc/modules exists. */
  loadable: boolean;
  /** Every loaded module (lsmod), by name. */
  loadedModules: string[];
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

export async function confFiles(host: Host): Promise<string[]> {
  return ((await listDirectory(host, MODPROBE_D)) ?? []).filter((n) => CONF_NAME.test(n)).sort().map((n) => `${MODPROBE_D}/${n}`);
}

export async function readModule(host: Host, module: string): Promise<ModuleState> {
  const m = canonical(module);
  const loadable = (await host.stat('/proc/modules')) !== null;
  let loadedModules: string[] = [];
  if (loadable) {
    const r = await host.run('lsmod', []);
    loadedModules = [...parseLsmod(r.code === 0 ? r.stdout : '').keys()];
  }
  const loaded = loadedModules.includes(m);
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
    loadedModules,
    loaded,
    builtin,
    airlockFile: (await host.stat(own)) !== null,
    elsewhere,
    updateInitramfs: (await host.stat('/usr/sbin/update-initramfs')) !== null,
  };
}

/**
 * The modules `modprobe MODULE` loads before it, from `modprobe --show-depends` ("insmod PATH"
 * lines, MODULE's last): their names as lsmod shows them. Names that are not plain module names are left out.
 */
export function dependencies(showDepends: string, module: string): string[] {
  const m = canonical(module);
  return showDepends
    .split('\n')
    .flatMap((l) => {
      const insmod = /^insmod (\S+)/.exec(l.trim());
      return insmod ? [insmod[1]!] : [];
    })
    .map((path) => canonical(path.split('/').pop()!.replace(/\.ko(\.(xz|gz|zst))?$/, '')))
    .filter((d) => d !== m && /^[a-z0-9][a-z0-9_]{0,55}$/.test(d));
}
