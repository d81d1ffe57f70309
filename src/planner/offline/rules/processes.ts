/** Rules of the processes family: top consumers, one process, signals, the tree, a user's processes, limits. */
import { missing, rule, step, steps, takeUnit, takeUser } from '../rule.js';
import { type Clause } from '../words.js';

function takePid(c: Clause): number | null {
  const p = c.after(['pid', 'process', 'proc'], (t) => /^\d{1,7}$/.test(t.low)) ?? c.takeToken((t) => /^\d{1,7}$/.test(t.low));
  return p === null ? null : Number(p);
}

const SIGNALS: [string[], string][] = [
  [['sighup', 'hup'], 'HUP'], [['sigkill', 'kill -9', '-9', 'force', 'forcefully', 'hard'], 'KILL'], [['sigusr1', 'usr1'], 'USR1'], [['sigusr2', 'usr2'], 'USR2'],
  [['sigint', 'int', 'interrupt'], 'INT'], [['sigstop', 'pause', 'freeze', 'suspend'], 'STOP'], [['sigcont', 'cont', 'resume', 'continue'], 'CONT'], [['sigterm', 'term'], 'TERM'],
];

function signal(c: Clause): string | null {
  for (const [words, s] of SIGNALS) if (c.saidAny(words) !== null) return s;
  return null;
}

export const processesRules = [
  rule('processes.top', [['top', 'most', 'using', 'hog', 'hogging', 'eating', 'consuming', 'heaviest', 'biggest', 'uses'], ['cpu', 'memory', 'ram', 'processor', 'mem']], (c) => {
    const by = c.saidAny(['memory', 'ram', 'mem']) !== null ? 'memory' : (c.saidAny(['cpu', 'processor']), 'cpu');
    return steps(step('TopProcesses', { by }, `processes by ${by === 'cpu' ? 'CPU' : 'memory'} use, highest first`));
  }, { also: ['what', 'which', 'is', 'process', 'processes', 'the', 'show', 'all', 'up', 'of'] }),
  rule('processes.info', [['pid', 'process'], ['about', 'info', 'details', 'what is', 'show', 'tell', 'inspect']], (c) => {
    const pid = takePid(c);
    return pid === null || pid < 2 ? missing('which process (its pid)') : steps(step('ProcessInfo', { pid }, `what process ${pid} is`));
  }, { needs: (c) => c.tokens.some((t) => /^\d{1,7}$/.test(t.low)), also: ['me', 'the', 'of', 'is'], unless: ['limits', 'limit', 'ulimit', 'kill', 'signal', 'terminate'] }),
  rule('processes.signal', [['kill', 'terminate', 'signal', 'send', 'stop', 'end', 'pause', 'resume']], (c) => {
    const sig = signal(c) ?? 'TERM';
    const pid = takePid(c);
    if (pid === null || pid < 2) return missing('which process (its pid)');
    return steps(step('SignalProcess', { pid, signal: sig }, `send ${sig} to process ${pid}`));
  }, { needs: (c) => c.tokens.some((t) => /^\d{2,7}$/.test(t.low)) && (c.has('pid') || c.has('process') || c.has('kill') || c.has('terminate') || c.has('signal')), also: ['process', 'pid', 'to', 'the', 'with', 'a', 'it'] }),
  rule('processes.signal-unit', [['send', 'signal', 'kill'], ['hup', 'sighup', 'usr1', 'sigusr1', 'usr2', 'sigusr2', 'term', 'sigterm', 'sigkill', 'int', 'signal']], (c, ctx) => {
    const sig = signal(c) ?? 'TERM';
    const whom = c.takeAny(['all processes', 'every process', 'all its processes', 'all']) !== null ? 'all' : null;
    const unit = takeUnit(c, ctx);
    return unit === null ? missing('which service') : steps(step('SignalUnit', { unit, signal: sig, ...(whom !== null ? { whom } : {}) }, `send ${sig} to ${unit}`));
  }, { needs: (c) => !c.tokens.some((t) => /^\d{2,7}$/.test(t.low)), also: ['to', 'the', 'a', 'of', 'service', 'main', 'process'] }),
  rule('processes.what-running', [['what'], ['running', 'doing']], (c, ctx) => {
    const user = takeUser(c, ctx);
    return user === null ? steps(step('ListProcesses', {}, 'processes by CPU use')) : steps(step('ProcessesOfUser', { user }, `the processes running as ${user}`));
  }, { needs: (c) => c.tokens.some((t) => c.isName(t) && /^[a-z_][a-z0-9_-]{0,31}$/.test(t.low)) && !c.tokens.some((t) => /\.(service|timer)$/.test(t.low)), also: ['is', 'user', 'as'] }),
  rule('processes.tree', [['tree', 'pstree', 'hierarchy', 'parent']], () => steps(step('ProcessTree', {}, 'every process as a tree')), { also: ['process', 'processes', 'show', 'the', 'as', 'a', 'of'] }),
  rule('processes.of-user', [['processes', 'running', 'run', 'owned', 'process'], ['user', 'as', 'by', 'of', 'owned by', 'belonging to']], (c, ctx) => {
    const user = takeUser(c, ctx);
    return user === null ? missing('which user') : steps(step('ProcessesOfUser', { user }, `the processes running as ${user}`));
  }, { needs: (c) => c.tokens.some((t) => c.isName(t) && /^[a-z_][a-z0-9_-]{0,31}$/.test(t.low)), also: ['what', 'is', 'list', 'show', 'which', 'the', 'all'] }),
  rule('processes.limits', [['limits', 'limit', 'ulimit', 'ulimits', 'open files limit', 'max open files']], (c) => {
    const pid = takePid(c);
    return pid === null ? missing('which process (its pid)') : steps(step('ProcessLimits', { pid }, `the resource limits of process ${pid}`));
  }, { needs: (c) => c.tokens.some((t) => /^\d{1,7}$/.test(t.low)), also: ['show', 'what', 'are', 'the', 'of', 'process', 'pid', 'resource', 'for'] }),
];
