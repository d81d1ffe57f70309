/**
 * Podman as the containers family reads it: podman itself (without a trusted
 * /usr/bin/podman every action refuses with podman_missing), one container by name or id
 * (`podman container inspect`, of which only the id, name, image, state, --rm and systemd
 * unit are kept), the refusals when either is missing, and the shape of an action on one
 * container. Every change acts on the full id read at preview time, so a container
 * replaced under the same name between approval and execution is never the one acted on.
 */
import { AirlockError } from '../../../protocol/errors.js';
import { action, type ActionDeclaration, type Host, type Without } from '../../action.js';
import { command, type CommandStep } from '../../mechanism.js';
import { token } from '../../params.js';
import { firstLine } from '../../lib/text.js';

/**
 * A container name (podman's rule, [a-zA-Z0-9][a-zA-Z0-9_.-]*) or an id (12 to 64 hex
 * digits, which the name rule also admits). '..' is refused although podman allows it in
 * a name: no parameter of Airlock carries it.
 */
export const containerRef = token(/^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,127}$/, 'container name or id', 128, 'a container name or id (a letter or digit, then letters, digits and _ . -, up to 128 characters, e.g. web or 3f2a9c1b7d4e)')
  .refine((s) => !s.includes('..'), "container name must not contain '..'")
  .describe('a container name as podman shows it (ListContainers), or its id (12 to 64 hex digits)');

/** What the actions need of `podman container inspect`: nothing of its environment, command or mounts. */
export interface ContainerState {
  /** The full 64-hex id: what every change acts on. */
  id: string;
  name: string;
  image: string;
  /** podman's state: created, configured, initialized, running, paused, stopping, stopped, exited, removing. */
  status: string;
  /** Created with --rm: stopping it removes it. */
  autoRemove: boolean;
  /** The systemd unit that runs it (the label podman generate systemd and Quadlet set), if any. */
  systemdUnit: string | null;
}

export interface Target {
  /** `podman --version`, or null when the daemon has no trusted podman binary. */
  podman: string | null;
  container: ContainerState | null;
}

/** podman's version line, or null when the daemon resolved no trusted podman binary. */
export async function podmanVersion(host: Host): Promise<string | null> {
  try {
    const r = await host.run('podman', ['--version']);
    if (r.code !== 0) throw new AirlockError('execution', 'podman_failed', `podman --version failed: ${podmanMessage(r.stderr)}`, 'a person checks the podman installation');
    return r.stdout.trim();
  } catch (e) {
    if (e instanceof AirlockError && e.code === 'program_missing') return null;
    throw e;
  }
}

/** What podman said went wrong, or that it said nothing. */
const podmanMessage = (stderr: string) => firstLine(stderr) || '(no message)';

interface InspectJson {
  Id?: string;
  Name?: string;
  ImageName?: string;
  State?: { Status?: string };
  Config?: { Labels?: Record<string, string> | null };
  HostConfig?: { AutoRemove?: boolean };
}

export function parseInspect(stdout: string): ContainerState | null {
  const c = (JSON.parse(stdout) as InspectJson[])[0];
  if (!c?.Id) return null;
  return {
    id: c.Id,
    name: c.Name ?? '',
    image: c.ImageName ?? '',
    status: c.State?.Status ?? 'unknown',
    autoRemove: c.HostConfig?.AutoRemove === true,
    systemdUnit: c.Config?.Labels?.PODMAN_SYSTEMD_UNIT ?? null,
  };
}

/** One container by name or id, or null when podman knows none by that reference. */
export async function readContainer(host: Host, ref: string): Promise<ContainerState | null> {
  const r = await host.run('podman', ['container', 'inspect', '--', ref]);
  if (r.code === 0) return parseInspect(r.stdout);
  if (/no such container/i.test(r.stderr)) return null;
  throw new AirlockError('execution', 'podman_failed', `podman could not inspect ${ref}: ${podmanMessage(r.stderr)}`);
}

/** The state every container action starts from: podman itself, then the container. */
export async function readTarget(host: Host, ref: string): Promise<Target> {
  const podman = await podmanVersion(host);
  return { podman, container: podman === null ? null : await readContainer(host, ref) };
}

// ---------------------------------------------------------------- refusals

export function requirePodman(podman: string | null): void {
  if (podman === null) throw new AirlockError('unsupported_platform', 'podman_missing', 'podman is not installed on this host (there is no trusted /usr/bin/podman)', 'install it with InstallPackage {"package": "podman"}, then preview again');
}

export function requireContainer(ref: string, t: Target): ContainerState {
  requirePodman(t.podman);
  if (t.container === null) throw new AirlockError('validation', 'no_such_container', `podman has no container named ${ref}`, 'ListContainers shows the containers and their ids');
  return t.container;
}

const short = (id: string) => id.slice(0, 12);
export const describeContainer = (c: ContainerState) => `${c.name} (${short(c.id)}, image ${c.image}, ${c.status})`;
/** What the preview shows of a container: never its environment, command line or mounts. */
const shownTarget = (t: Target) => ({ podman: t.podman, container: t.container });

/**
 * The state probe of the containers' changes: whether the container runs, by its full id
 * (`{{.State.Running}}`, true or false). Not its status: a created container started and
 * stopped again is "exited", with nothing that could make it "created" again; both are not
 * running, which is what a start or stop changes and its undo puts back.
 */
export const runningProbe = (id: string) => ({ program: 'podman' as const, args: ['container', 'inspect', '--format', '{{.State.Running}}', '--', id] });

/** A stop or restart waits up to `seconds` for the container: the step's own limit leaves room for that. */
export const podmanStep = (args: string[], waitSeconds = 0): CommandStep => command('podman', args, { timeoutMs: (waitSeconds + 60) * 1000 });

/** An action on one named container: it reads podman and the container, and the preview shows only their state. */
export function containerAction<P extends { container: string }>(d: Without<ActionDeclaration<P, Target>, 'family' | 'files' | 'current' | 'shown'>) {
  return action<P, Target>({ ...d, family: 'containers', files: [], current: ({ container }, host) => readTarget(host, container), shown: shownTarget });
}
