/** One block device: the device node a /dev path names (udev links resolved once), and what lsblk and blkid say of it. */
import { AirlockError } from '../../../protocol/errors.js';
import { action, type Host } from '../../action.js';
import { command } from '../../mechanism.js';
import { params, token } from '../../params.js';
import { linkTarget } from '../../lib/host-files.js';

/**
 * The device node a device path names. udev's names (/dev/disk/by-uuid/UUID, /dev/VG/LV)
 * are links: such a link is resolved here, once, to a path under /dev, and programs get the
 * node itself, which must pass the trusted-path rule (no link, /dev and its directories
 * root's alone, so not /dev/shm).
 */
export async function deviceNode(host: Host, path: string): Promise<string> {
  let node = path;
  if ((await host.stat(path))?.isSymlink) {
    const target = await linkTarget(host, path);
    if (target === null || !target.startsWith('/dev/')) {
      throw new AirlockError('authorization', 'link_outside_dev', `${path} is a link to ${target ?? 'something Airlock cannot resolve'}, not to a device under /dev`);
    }
    node = target;
  }
  await host.trustedPath(node);
  return node;
}

/** A block device path under /dev: /dev/sda1, /dev/nvme0n1, /dev/loop0, /dev/VG/LV, /dev/mapper/NAME, /dev/disk/by-uuid/UUID. */
export const blockDevice = token(/^\/dev\/[A-Za-z0-9][A-Za-z0-9:._+-]*(\/[A-Za-z0-9][A-Za-z0-9:._+-]*){0,2}$/, 'block device (/dev/...)', 200);

export const blockDeviceInfo = action({
  name: 'BlockDeviceInfo',
  family: 'storage',
  description:
    'Show one block device and what it holds: type, size in bytes, read-only, mount point and model with its children, as JSON (lsblk), then the signature on the device itself: file system type, label, UUID and PARTUUID, what an fstab entry needs (blkid -p, which reads the device and so works without udev).',
  risk: 'low',
  readOnly: true,
  sensitive: false,
  reachesNetwork: false,
  params: params({ device: blockDevice }),
  files: [],
  example: { device: '/dev/sda' },
  current: async ({ device }, host) => {
    if ((await host.stat(device)) === null) return { node: device, st: null };
    const node = await deviceNode(host, device);
    return { node, st: await host.stat(node) };
  },
  check: ({ device }, { node, st }) => {
    if (st === null) throw new AirlockError('validation', 'no_such_device', `${device} does not exist`, 'ListBlockDevices lists the block devices');
    if (st.isDir || st.isFile) throw new AirlockError('validation', 'not_a_block_device', `${node} is a ${st.isDir ? 'directory' : 'regular file'}, not a block device`);
  },
  shown: ({ node }) => ({ device: node }),
  preview: ({ device }, { node }) => ({ summary: `Read what lsblk knows of ${device}${node !== device ? ` (${node})` : ''} and what it holds, and probe its signature (blkid -p)`, change: null }),
  mechanism: (_p, { node }) => [
    command('lsblk', ['-J', '-b', '-p', '-o', 'NAME,TYPE,SIZE,RO,FSTYPE,LABEL,UUID,PARTUUID,MOUNTPOINT,MODEL', '--', node], { paths: [node] }),
    // lsblk takes FSTYPE, LABEL and UUID from udev's database (null where udev does not run); blkid -p reads the device. Status 2: no signature.
    command('blkid', ['-p', '-o', 'export', '--', node], { okCodes: [0, 2], paths: [node] }),
  ],
});
