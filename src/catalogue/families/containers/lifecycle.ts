/**
 * Containers, run state: an existing container started, stopped or restarted (podman
 * start, stop, restart). Nothing here creates, removes or runs a container, or executes
 * anything inside one. A start and a stop undo each other; a restart of a running
 * container is an event that leaves it running.
 */
import { z } from 'zod';
import { AirlockError } from '../../../protocol/errors.js';
import { params } from '../../params.js';
import { containerAction, containerRef, describeContainer, podmanStep, requireContainer, runningProbe, type ContainerState, type Target } from './podman.js';
import { unchanged } from '../../action.js';
import type { CommandStep } from '../../mechanism.js';
import { exact } from '../../rollback.js';

/** Seconds podman waits after the stop signal before it sends SIGKILL (podman's own default is 10). */
export const stopTimeout = z.number().int().min(0).max(300).describe('seconds to wait after the stop signal before SIGKILL, 0 to 300 (default 10)');
export const DEFAULT_STOP_TIMEOUT = 10;

/** States a container can be started from (podman start). */
const STARTABLE = ['created', 'configured', 'initialized', 'exited', 'stopped'];

/** Refuses a paused container or one in the middle of a change: neither start, stop nor restart applies. */
function refuseUnsettled(c: ContainerState): void {
  if (c.status === 'paused') throw new AirlockError('conflict', 'container_paused', `${c.name} is paused`, 'a person unpauses it (podman unpause) first');
  if (c.status !== 'running' && !STARTABLE.includes(c.status)) throw new AirlockError('conflict', 'container_busy', `${c.name} is ${c.status}`, 'wait until it settles, then preview again');
}

function stateChange(c: ContainerState, to: string) {
  return { container: c.name, id: c.id, image: c.image, state: { from: c.status, to } };
}

/** A container that systemd runs is systemd's to start and stop: acting on it directly fights its unit. */
function systemdWarnings(c: ContainerState): string[] {
  return c.systemdUnit ? [`${c.name} is run by the systemd unit ${c.systemdUnit}: systemd may restart or stop it again; StartService/StopService act on that unit instead`] : [];
}

/** The undo of a start: the container stopped again, as StopContainer does by default. */
const stopAgain = (c: ContainerState): CommandStep => podmanStep(['stop', '--time', String(DEFAULT_STOP_TIMEOUT), '--', c.id], DEFAULT_STOP_TIMEOUT);
/** What a start, stop or restart changes and its undo puts back: whether the container runs (probed by its full id). */
const probes = (_p: { container: string }, t: Target) => (t.container ? [runningProbe(t.container.id)] : []);

function stopTimeoutWarnings(seconds: number): string[] {
  return seconds === 0 ? ['a timeout of 0 kills the container at once (SIGKILL): it gets no chance to shut down cleanly'] : [];
}

export const startContainer = containerAction({
  name: 'StartContainer',
  description: 'Start an existing container that is not running (podman start); it runs its configured command again.',
  risk: 'medium',
  readOnly: false,
  // Undone by stopping it again (its stop signal, SIGKILL after 10 s).
  rollback: exact(probes),
  runsPrograms: true,
  params: params({ container: containerRef }),
  example: { container: 'web' },
  check: ({ container }, t) => {
    const c = requireContainer(container, t);
    if (c.status === 'running') return unchanged(`${c.name} is already running`);
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
  mechanism: ({ container }, t) => {
    const c = requireContainer(container, t);
    return [{ ...podmanStep(['start', '--', c.id]), undo: stopAgain(c) }];
  },
});

export const stopContainer = containerAction({
  name: 'StopContainer',
  description: 'Stop a running container (podman stop): its stop signal, then SIGKILL after the timeout (10 s by default, at most 300).',
  risk: 'medium',
  readOnly: false,
  // Undone by starting it again, unless it was made with --rm: podman then removes it as it stops.
  rollback: exact(probes),
  runsPrograms: false,
  params: params({ container: containerRef, timeout: stopTimeout.optional() }),
  example: { container: 'web', timeout: 30 },
  check: ({ container }, t) => {
    const c = requireContainer(container, t);
    if (STARTABLE.includes(c.status)) return unchanged(`${c.name} is not running (${c.status})`);
    refuseUnsettled(c);
  },
  preview: ({ container, timeout }, t) => {
    const c = requireContainer(container, t);
    const seconds = timeout ?? DEFAULT_STOP_TIMEOUT;
    return {
      summary: `Stop the container ${describeContainer(c)}`,
      change: { ...stateChange(c, c.autoRemove ? 'removed' : 'exited'), kill_after_seconds: seconds },
      sideEffects: [`whatever ${c.name} serves is unavailable until it is started again`, ...(c.autoRemove ? [`${c.name} was created with --rm: stopping it removes it, and it cannot be started again`] : [])],
      warnings: [...systemdWarnings(c), ...stopTimeoutWarnings(seconds), ...(c.autoRemove ? ['this stop cannot be undone or reverted: the container is gone once it stops'] : [])],
    };
  },
  mechanism: ({ container, timeout }, t) => {
    const seconds = timeout ?? DEFAULT_STOP_TIMEOUT;
    const c = requireContainer(container, t);
    const stop = podmanStep(['stop', '--time', String(seconds), '--', c.id], seconds);
    // A container made with --rm is removed as it stops: nothing can start it again, so no undo is claimed.
    return [c.autoRemove ? stop : { ...stop, undo: podmanStep(['start', '--', c.id]) }];
  },
});

export const restartContainer = containerAction({
  name: 'RestartContainer',
  description: 'Restart a container (podman restart): stop it if it runs (SIGKILL after the timeout, 10 s by default), then start it.',
  risk: 'medium',
  readOnly: false,
  // A running container restarted runs again: an event. A stopped one is started, and undone as a start.
  rollback: exact(probes),
  runsPrograms: true,
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
    const c = requireContainer(container, t);
    const restart = podmanStep(['restart', '--time', String(seconds), '--', c.id], seconds);
    return [c.status === 'running' ? { ...restart, noUndo: 'leaves_state' } : { ...restart, undo: stopAgain(c) }];
  },
});
