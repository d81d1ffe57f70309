import type { AnyAction } from '../../action.js';
import { restartContainer, startContainer, stopContainer } from './lifecycle.js';
import { containerLogs, inspectContainer, listContainers, listImages } from './reads.js';

/**
 * The containers family: root's Podman containers listed, inspected, started, stopped,
 * restarted and their logs read. No action creates, removes or runs a container, or
 * executes anything inside one: those need an image reference or a command line, which
 * is exactly the kind of free text Airlock refuses.
 */
export const actions: readonly AnyAction[] = [listContainers, listImages, inspectContainer, containerLogs, startContainer, stopContainer, restartContainer];
