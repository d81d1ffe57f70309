/**
 * containers family, in the booted Debian test bed (podman, crun, conmon and
 * busybox-static are in its package list). No registry is reachable, so the setup
 * makes an image offline: a tarball of busybox and a greeting file, `podman import`ed.
 * The test bed's root is an overlayfs and its cgroup controllers are read-only (the
 * host runs cgroup v1), so the setup configures podman's vfs storage driver and creates
 * the container with --cgroups=disabled and --network none; --init (catatonit) makes it
 * stop cleanly on SIGTERM. Each action then runs through the daemon and its effect is
 * checked with podman from outside it.
 */
import assert from 'node:assert/strict';
import type { SandboxView, Scenario } from './types.js';

export const host = 'testbed';

const PODMAN = '/usr/bin/podman';
const NAME = 'airlock-demo';
const IMAGE = 'localhost/airlock-busybox';
const GREETING = 'airlock-demo-says-hello';
const IMG_DIR = '/var/tmp/airlock-image';
const STORAGE_CONF = `[storage]
driver = "vfs"
runroot = "/run/containers/storage"
graphroot = "/var/lib/containers/storage"
`;
/** nspawn's system call filter, which the daemon inherits from the container's systemd, refuses keyctl: no session keyring. */
const CONTAINERS_CONF = `[containers]
keyring = false
`;

async function ok(box: SandboxView, program: string, args: string[]): Promise<string> {
  const r = await box.run(program, args);
  assert.equal(r.code, 0, `${program} ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}
const podman = (box: SandboxView, ...args: string[]) => ok(box, PODMAN, args);
const inspect = async (box: SandboxView, field: string) => (await podman(box, 'container', 'inspect', '--format', `{{${field}}}`, '--', NAME)).trim();
const json = <T>(r: { output: string[] }) => JSON.parse(r.output.join('\n')) as T;

/** vfs storage and a one-binary image made from busybox-static (also used by test/integration/masking.test.ts). */
export async function makeImage(box: SandboxView): Promise<string> {
  assert.ok(box.writeFile, 'the scenario runner must provide writeFile');
  await box.writeFile('/etc/containers/storage.conf', STORAGE_CONF);
  await box.writeFile('/etc/containers/containers.conf', CONTAINERS_CONF);
  await ok(box, '/usr/bin/mkdir', ['-p', '--', `${IMG_DIR}/root/bin`]);
  await ok(box, '/usr/bin/cp', ['--', '/bin/busybox', `${IMG_DIR}/root/bin/busybox`]);
  await box.writeFile(`${IMG_DIR}/root/greeting`, `${GREETING}\n`);
  await ok(box, '/usr/bin/tar', ['-C', `${IMG_DIR}/root`, '-cf', `${IMG_DIR}/image.tar`, '.']);
  await podman(box, 'import', '--change', 'CMD ["/bin/busybox", "tail", "-f", "/greeting"]', '--', `${IMG_DIR}/image.tar`, IMAGE);
  return IMAGE;
}

/** The image, and a created (not started) container. */
async function makeImageAndContainer(box: SandboxView): Promise<void> {
  await makeImage(box);
  await podman(box, 'create', '--name', NAME, '--init', '--network', 'none', '--cgroups', 'disabled', '--env', 'DEMO_TOKEN=not-a-real-secret', IMAGE);
}

let pidBeforeRestart = 0;
let linesBeforeRestart = 0;
/** The container's log, one greeting a line per run of its command. */
const logLines = async (box: SandboxView) => (await podman(box, 'logs', '--', NAME)).split('\n').filter(Boolean);
/** RestartContainer names the container by its short id, known only once it exists: InspectContainer's check fills it in. */
const byId: { container: string; timeout: number } = { container: NAME, timeout: 5 };

export const scenarios: Scenario[] = [
  {
    action: 'ListImages',
    params: {},
    setup: makeImageAndContainer,
    check: async (box, r) => {
      const images = json<Array<{ Id: string; Names?: string[] }>>(r);
      const ours = images.find((i) => i.Names?.includes(`${IMAGE}:latest`));
      assert.ok(ours, `${IMAGE} listed in ${r.output.join('')}`);
      assert.equal(ours.Id, (await podman(box, 'image', 'inspect', '--format', '{{.Id}}', '--', IMAGE)).trim());
    },
  },
  {
    action: 'ListContainers',
    params: {},
    check: async (box, r) => {
      const rows = json<Array<{ Id: string; Names: string[]; State: string; Image: string }>>(r);
      const ours = rows.find((c) => c.Names.includes(NAME));
      assert.ok(ours, `${NAME} listed`);
      assert.deepEqual([ours.State, ours.Image, ours.Id], ['created', `${IMAGE}:latest`, await inspect(box, '.Id')]);
    },
  },
  {
    action: 'InspectContainer',
    params: { container: NAME },
    check: async (box, r) => {
      const [c] = json<Array<{ Id: string; Name: string; State: { Status: string }; Config: { Env: string[] } }>>(r);
      assert.equal(c!.Id, await inspect(box, '.Id'));
      byId.container = c!.Id.slice(0, 12);
      assert.equal(c!.Name, NAME);
      assert.equal(c!.State.Status, 'created');
      // The full record, environment included (hence Medium), with the token's value masked (src/mask).
      assert.ok(c!.Config.Env.includes('DEMO_TOKEN=⟦secret:token⟧'), `the environment, masked: ${c!.Config.Env.join(' ')}`);
      assert.ok(!r.output.join('\n').includes('not-a-real-secret'));
    },
  },
  {
    action: 'StartContainer',
    params: { container: NAME },
    check: async (box) => {
      assert.equal(await inspect(box, '.State.Status'), 'running');
      assert.match(await podman(box, 'ps', '--filter', `name=^${NAME}$`, '--format', '{{.Names}} {{.Status}}'), new RegExp(`^${NAME} Up `));
      pidBeforeRestart = Number(await inspect(box, '.State.Pid'));
      assert.ok(pidBeforeRestart > 1, 'a process runs');
    },
  },
  {
    action: 'ContainerLogs',
    params: { container: NAME, lines: 10 },
    // One greeting per run: StartContainer's rounds (issue 27) started it three times (made to fail and undone, done, reverted, done again).
    check: async (box, r) => {
      const lines = r.output.join('\n').split('\n').filter(Boolean);
      assert.ok(lines.length > 0 && lines.every((l) => l === GREETING), `only the greeting, once per run: ${JSON.stringify(r.output)}`);
      assert.deepEqual(lines, (await logLines(box)).slice(-10), 'what podman logs holds, read from outside');
    },
  },
  {
    title: 'by id',
    action: 'RestartContainer',
    params: byId,
    setup: async (box) => {
      linesBeforeRestart = (await logLines(box)).length;
    },
    check: async (box) => {
      assert.equal(await inspect(box, '.State.Status'), 'running');
      const pid = Number(await inspect(box, '.State.Pid'));
      assert.ok(pid > 1 && pid !== pidBeforeRestart, `a new process (${pidBeforeRestart} -> ${pid})`);
      const lines = await logLines(box);
      assert.ok(lines.length > linesBeforeRestart && lines.every((l) => l === GREETING), `the command ran again (${linesBeforeRestart} -> ${lines.length} runs)`);
    },
  },
  {
    action: 'StopContainer',
    params: { container: NAME, timeout: 5 },
    check: async (box) => {
      assert.equal(await inspect(box, '.State.Status'), 'exited');
      assert.equal(await inspect(box, '.State.ExitCode'), '143', 'it stopped on SIGTERM, not SIGKILL');
      assert.equal((await podman(box, 'ps', '--filter', `name=^${NAME}$`, '--format', '{{.Names}}')).trim(), '', 'no longer among the running');
    },
  },
];
