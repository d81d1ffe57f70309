/** Rules of the containers family: root's Podman containers and images. */
import { missing, rule, step, steps, remember, type Built, type Context } from '../rule.js';
import { takeCount, type Clause } from '../words.js';

const CONTAINER = ['container', 'containers', 'podman'];
const NAME = /^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,127}$/;

function takeContainer(c: Clause, ctx: Context): string | null {
  const n = c.before(['container'], (t) => c.isName(t) && NAME.test(t.raw)) ?? c.after(['container'], (t) => c.isName(t) && NAME.test(t.raw)) ?? c.takeToken((t) => c.isName(t) && NAME.test(t.raw) && !/^\d+$/.test(t.low));
  if (n !== null) return remember(ctx, 'container', n);
  if (ctx.last.container !== undefined && c.takeAny(['its', 'it', 'them', 'that'])) return ctx.last.container;
  return null;
}

function one(action: string, verb: string) {
  return (c: Clause, ctx: Context): Built => {
    const name = takeContainer(c, ctx);
    return name === null ? missing(`which container to ${verb}`) : steps(step(action, { container: name }, `${verb} the container ${name}`));
  };
}

export const containersRules = [
  rule('containers.list', [CONTAINER], (c) => (c.takeAny(['images', 'image']) !== null ? steps(step('ListImages', {}, "root's Podman images")) : steps(step('ListContainers', {}, "root's Podman containers, running and stopped"))),
    { also: ['list', 'show', 'which', 'what', 'running', 'are', 'all', 'the', 'stopped'], unless: ['start', 'stop', 'restart', 'logs', 'log', 'inspect', 'config', 'configuration'], needs: (c) => !c.tokens.some((t) => c.isName(t) && NAME.test(t.raw) && !['podman', 'container', 'containers'].includes(t.low)) }),
  rule('containers.images', [['images', 'container images', 'podman images']], () => steps(step('ListImages', {}, "root's Podman images")), { also: ['list', 'show', 'which', 'what', 'the', 'are', 'there', 'downloaded', 'pulled'] }),
  rule('containers.inspect', [['inspect', 'configuration', 'config', 'details'], ['container']], one('InspectContainer', 'inspect'), { also: ['the', 'of', 'show'] }),
  rule('containers.logs', [['logs', 'log', 'output'], CONTAINER], (c, ctx) => {
    const lines = takeCount(c);
    const name = takeContainer(c, ctx);
    return name === null ? missing('which container') : steps(step('ContainerLogs', { container: name, ...(lines !== null ? { lines: Math.min(lines, 1000) } : {}) }, `the last lines the container ${name} wrote`));
  }, { also: ['show', 'the', 'of', 'last', 'recent', 'tail'] }),
  rule('containers.start', [['start', 'launch', 'run'], ['container']], one('StartContainer', 'start'), { also: ['the', 'again'] }),
  rule('containers.stop', [['stop', 'halt', 'shut down'], ['container']], one('StopContainer', 'stop'), { also: ['the'] }),
  rule('containers.restart', [['restart', 'bounce', 'reboot', 'kick', 'recreate'], ['container']], one('RestartContainer', 'restart'), { also: ['the'] }),
];
