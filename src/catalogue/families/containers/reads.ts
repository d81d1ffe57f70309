/**
 * Containers, read: root's containers and images listed, one container's configuration
 * (environment included) and its last log lines.
 */
import { action, type ReadDeclaration } from '../../action.js';
import { DEFAULT_LOG_LINES, journalLines, params } from '../../params.js';
import { containerAction, containerRef, describeContainer, podmanStep, podmanVersion, requireContainer, requirePodman } from './podman.js';

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
