/**
 * Containers: Podman containers of root (the daemon runs podman as root), listed,
 * inspected, started, stopped, restarted and their logs read. No action here creates,
 * removes or runs a container, or executes anything inside one: those need an image
 * reference or a command line, which is exactly the kind of free text Airlock refuses.
 *
 * Every action reads podman first: without a trusted /usr/bin/podman it refuses with
 * podman_missing. A container is named by podman's own name rule or by its id, and
 * every change acts on the full id read at preview time, so a container replaced
 * under the same name between approval and execution is never the one acted on.
 */
import { z } from 'zod';
import { AirlockError } from '../../protocol/errors.js';
import { action, type ActionDeclaration, type Host, type ReadDeclaration, type Without } from '../action.js';
import { command, type CommandStep } from '../mechanism.js';
import { DEFAULT_LOG_LINES, journalLines, params, token } from '../params.js';

// ---------------------------------------------------------------- parameters

/**
 * A container name (podman's rule, [a-zA-Z0-9][a-zA-Z0-9_.-]*) or an id (12 to 64 hex
 * digits, which the name rule also admits). '..' is refused although podman allows it in
 * a name: no parameter of Airlock carries it.
 */
export const containerRef = token(/^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,127}$/, 'container name or id ([a-zA-Z0-9][a-zA-Z0-9_.-]*, or 12 to 64 hex digits)', 128)
  .refine((s) => !s.includes('..'), "container name must not contain '..'")
  .describe('a container name as podman shows it (ListContainers), or its id (12 to 64 hex digits)');

/** Seconds podman waits after the stop signal before it sends SIGKILL (podman's own default is 10). */
export const stopTimeout = z.number().int().min(0).max(300).describe('seconds to wait after the stop signal before SIGKILL, 0 to 300 (default 10)');
export const DEFAULT_STOP_TIMEOUT = 10;

// ---------------------------------------------------------------- the shared state readers

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
    if (r.code !== 0) throw new AirlockError('execution', 'podman_failed', `podman --version failed: ${firstLine(r.stderr)}`, 'a person checks the podman installation');
    return r.stdout.trim();
  } catch (e) {
    if (e instanceof AirlockError && e.code === 'program_missing') return null;
    throw e;
  }
}

const firstLine = (s: string) => s.split('\n').find((l) => l.trim() !== '')?.trim() ?? '(no message)';

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
  throw new AirlockError('execution', 'podman_failed', `podman could not inspect ${ref}: ${firstLine(r.stderr)}`);
}

/** The state every container action starts from: podman itself, then the container. */
export async function readTarget(host: Host, ref: string): Promise<Target> {
  const podman = await podmanVersion(host);
  return { podman, container: podman === null ? null : await readContainer(host, ref) };
}

// ---------------------------------------------------------------- refusals

function requirePodman(podman: string | null): void {
  if (podman === null) throw new AirlockError('unsupported_platform', 'podman_missing', 'podman is not installed on this host (there is no trusted /usr/bin/podman)', 'install it with InstallPackage {"package": "podman"}, then preview again');
}

export function requireContainer(ref: string, t: Target): ContainerState {
  requirePodman(t.podman);
  if (t.container === null) throw new AirlockError('validation', 'no_such_container', `podman has no container named ${ref}`, 'ListContainers shows the containers and their ids');
  return t.container;
}

/** States a container can be started from (podman start). */
const STARTABLE = ['created', 'configured', 'initialized', 'exited', 'stopped'];

/** Refuses a paused container or one in the middle of a change: neither start, stop nor restart applies. */
function refuseUnsettled(c: ContainerState): void {
  if (c.status === 'paused') throw new AirlockError('conflict', 'container_paused', `${c.name} is paused`, 'a person unpauses it (podman unpause) first');
  if (c.status !== 'running' && !STARTABLE.includes(c.status)) throw new AirlockError('conflict', 'container_busy', `${c.name} is ${c.status}`, 'wait until it settles, then preview again');
}

// ---------------------------------------------------------------- what previews say

const short = (id: string) => id.slice(0, 12);
const describeContainer = (c: ContainerState) => `${c.name} (${short(c.id)}, image ${c.image}, ${c.status})`;
/** What the preview shows of a container: never its environment, command line or mounts. */
const shownTarget = (t: Target) => ({ podman: t.podman, container: t.container });

function stateChange(c: ContainerState, to: string) {
  return { container: c.name, id: c.id, image: c.image, state: { from: c.status, to } };
}

/** A container that systemd runs is systemd's to start and stop: acting on it directly fights its unit. */
function systemdWarnings(c: ContainerState): string[] {
  return c.systemdUnit ? [`${c.name} is run by the systemd unit ${c.systemdUnit}: systemd may restart or stop it again; StartService/StopService act on that unit instead`] : [];
}

function stopTimeoutWarnings(seconds: number): string[] {
  return seconds === 0 ? ['a timeout of 0 kills the container at once (SIGKILL): it gets no chance to shut down cleanly'] : [];
}

/** A stop or restart waits up to `seconds` for the container: the step's own limit leaves room for that. */
const podmanStep = (args: string[], waitSeconds = 0): CommandStep => command('podman', args, { timeoutMs: (waitSeconds + 60) * 1000 });

/** An action on one named container: it reads podman and the container, and the preview shows only their state. */
function containerAction<P extends { container: string }>(d: Without<ActionDeclaration<P, Target>, 'family' | 'files' | 'current' | 'shown'>) {
  return action<P, Target>({ ...d, family: 'containers', files: [], current: ({ container }, host) => readTarget(host, container), shown: shownTarget });
}

// ---------------------------------------------------------------- reads

/** A parameterless, low-risk podman listing: refuses when podman is missing. */
function podmanListing(spec: { name: string; description: string; summary: string; args: string[] } & Omit<ReadDeclaration, 'readOnly'>) {
  return action({
    name: spec.name,
    family: 'containers',
    description: spec.description,
    risk: 'low',
    readOnly: true,
    sensitive: spec.sensitive,
    reachesNetwork: spec.reachesNetwork,
    params: params({}),
    files: [],
    example: {},
    current: async (_p, host) => podmanVersion(host),
    check: (_p, podman) => requirePodman(podman),
    preview: (_p, podman) => ({ summary: `${spec.summary} (${podman})`, change: null }),
    mechanism: () => [podmanStep(spec.args)],
  });
}

export const listContainers = podmanListing({
  name: 'ListContainers',
  // Sensitive: each container's command line.
  sensitive: true,
  reachesNetwork: false,
  description: "List root's Podman containers, running and stopped, as JSON (podman ps --all): name, id, image, state, command, ports.",
  summary: "List root's Podman containers",
  args: ['ps', '--all', '--format', 'json'],
});

export const listImages = podmanListing({
  name: 'ListImages',
  sensitive: false,
  reachesNetwork: false,
  description: "List root's Podman images as JSON (podman images): names, ids, sizes, creation dates.",
  summary: "List root's Podman images",
  args: ['images', '--format', 'json'],
});

/**
 * Medium, not Low: a container's configuration holds its environment, where database
 * passwords and API tokens usually live, and which no other user can read (/proc/PID/environ
 * is root's), unlike the command line ListContainers shows (any user sees it in ps). Masking
 * Env alone would miss the secrets people put in labels and annotations: the whole record
 * waits for approval instead.
 */
export const inspectContainer = containerAction({
  name: 'InspectContainer',
  description: "Show one container's full configuration and state (podman container inspect), environment variables included, which often hold secrets.",
  risk: 'medium',
  readOnly: true,
  // Sensitive: a container's whole configuration, environment variables included.
  sensitive: true,
  reachesNetwork: false,
  params: params({ container: containerRef }),
  example: { container: 'web' },
  check: ({ container }, t) => void requireContainer(container, t),
  preview: ({ container }, t) => ({
    summary: `Read the configuration of the container ${describeContainer(requireContainer(container, t))}`,
    change: null,
    warnings: ['the output shows the environment variables and command line, which may hold passwords or tokens'],
  }),
  mechanism: ({ container }, t) => [podmanStep(['container', 'inspect', '--', requireContainer(container, t).id])],
});

export const containerLogs = containerAction({
  name: 'ContainerLogs',
  description: "Show the last lines a container wrote to its stdout and stderr (podman logs --tail N), 100 by default; logs often hold secrets, hence Medium.",
  risk: 'medium',
  readOnly: true,
  // Sensitive: what a container wrote to its stdout and stderr.
  sensitive: true,
  reachesNetwork: false,
  params: params({ container: containerRef, lines: journalLines.optional() }),
  example: { container: 'web', lines: 50 },
  check: ({ container }, t) => void requireContainer(container, t),
  preview: ({ container, lines }, t) => ({
    summary: `Read the last ${lines ?? DEFAULT_LOG_LINES} log lines of the container ${describeContainer(requireContainer(container, t))}`,
    change: null,
  }),
  mechanism: ({ container, lines }, t) => [podmanStep(['logs', '--tail', String(lines ?? DEFAULT_LOG_LINES), '--', requireContainer(container, t).id])],
});

// ---------------------------------------------------------------- changes

export const startContainer = containerAction({
  name: 'StartContainer',
  description: 'Start an existing container that is not running (podman start); it runs its configured command again.',
  risk: 'medium',
  readOnly: false,
  params: params({ container: containerRef }),
  example: { container: 'web' },
  check: ({ container }, t) => {
    const c = requireContainer(container, t);
    if (c.status === 'running') throw new AirlockError('conflict', 'already_running', `${c.name} is already running`, 'RestartContainer restarts it');
    refuseUnsettled(c);
  },
  preview: ({ container }, t) => {
    const c = requireContainer(container, t);
    return {
      summary: `Start the container ${describeContainer(c)}`,
      change: stateChange(c, 'running'),
      sideEffects: [`${c.name} runs its configured command from image ${c.image}, with its configured ports and mounts`],
      warnings: systemdWarnings(c),
    };
  },
  mechanism: ({ container }, t) => [podmanStep(['start', '--', requireContainer(container, t).id])],
});

export const stopContainer = containerAction({
  name: 'StopContainer',
  description: 'Stop a running container (podman stop): its stop signal, then SIGKILL after the timeout (10 s by default, at most 300).',
  risk: 'medium',
  readOnly: false,
  params: params({ container: containerRef, timeout: stopTimeout.optional() }),
  example: { container: 'web', timeout: 30 },
  check: ({ container }, t) => {
    const c = requireContainer(container, t);
    if (STARTABLE.includes(c.status)) throw new AirlockError('conflict', 'not_running', `${c.name} is not running (${c.status})`, 'ListContainers shows every container and its state');
    refuseUnsettled(c);
  },
  preview: ({ container, timeout }, t) => {
    const c = requireContainer(container, t);
    const seconds = timeout ?? DEFAULT_STOP_TIMEOUT;
    return {
      summary: `Stop the container ${describeContainer(c)}`,
      change: { ...stateChange(c, c.autoRemove ? 'removed' : 'exited'), kill_after_seconds: seconds },
      sideEffects: [`whatever ${c.name} serves is unavailable until it is started again`, ...(c.autoRemove ? [`${c.name} was created with --rm: stopping it removes it, and it cannot be started again`] : [])],
      warnings: [...systemdWarnings(c), ...stopTimeoutWarnings(seconds)],
    };
  },
  mechanism: ({ container, timeout }, t) => {
    const seconds = timeout ?? DEFAULT_STOP_TIMEOUT;
    return [podmanStep(['stop', '--time', String(seconds), '--', requireContainer(container, t).id], seconds)];
  },
});

export const restartContainer = containerAction({
  name: 'RestartContainer',
  description: 'Restart a container (podman restart): stop it if it runs (SIGKILL after the timeout, 10 s by default), then start it.',
  risk: 'medium',
  readOnly: false,
  params: params({ container: containerRef, timeout: stopTimeout.optional() }),
  example: { container: 'web' },
  check: ({ container }, t) => refuseUnsettled(requireContainer(container, t)),
  preview: ({ container, timeout }, t) => {
    const c = requireContainer(container, t);
    const seconds = timeout ?? DEFAULT_STOP_TIMEOUT;
    const running = c.status === 'running';
    return {
      summary: `Restart the container ${describeContainer(c)}`,
      change: { ...stateChange(c, 'running'), ...(running ? { kill_after_seconds: seconds } : {}) },
      sideEffects: running ? [`${c.name} is unavailable while it restarts; its processes are replaced by new ones`] : [`${c.name} is not running: it is started`],
      warnings: [...systemdWarnings(c), ...(running ? stopTimeoutWarnings(seconds) : [])],
    };
  },
  mechanism: ({ container, timeout }, t) => {
    const seconds = timeout ?? DEFAULT_STOP_TIMEOUT;
    return [podmanStep(['restart', '--time', String(seconds), '--', requireContainer(container, t).id], seconds)];
  },
});
