/**
 * A person at a real pseudo-terminal (script(1)): what is written to script's stdin is
 * typed there, one answer once its prompt has shown, in order. `via` runs script inside
 * another place first (nsenter into the booted test bed).
 */
import { spawn } from 'node:child_process';

/**
 * What is typed once the prompt shows (a function sees the terminal's output so far); null types
 * nothing: the person did something elsewhere (in a browser) when that text showed.
 */
export type Answer = [prompt: string, typed: string | ((tty: string) => string | null | Promise<string | null>)];

/** A prompt that never shows fails the test after `timeoutMs` (exit 124, the output so far) instead of hanging it. */
export function typeAt(command: string, answers: Answer[], opts: { via?: string[]; timeoutMs?: number } = {}): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    const argv = [...(opts.via ?? []), '/usr/bin/script', '-q', '-e', '-c', command, '/dev/null'];
    const child = spawn(argv[0]!, argv.slice(1), { stdio: ['pipe', 'pipe', 'pipe'], env: { PATH: '/usr/bin:/bin', HOME: '/tmp', NO_COLOR: '1', TERM: 'dumb' } });
    let out = '';
    let next = 0;
    let seen = 0;
    let typing = false;
    // Answers in order; output that came while one was being made (in a browser) is looked at again after it.
    const pump = async () => {
      while (!typing) {
        const answer = answers[next];
        if (!answer || out.indexOf(answer[0], seen) < 0) return;
        typing = true;
        seen = out.indexOf(answer[0], seen) + answer[0].length;
        next++;
        let typed: string | null;
        try {
          typed = typeof answer[1] === 'string' ? answer[1] : await answer[1](out);
        } catch (e) {
          out += `\n(typeAt: the answer to "${answer[0]}" failed: ${(e as Error).stack ?? e}; stopped)\n`;
          child.kill('SIGKILL');
          return;
        }
        if (typed !== null) child.stdin.write(typed + '\n');
        if (next === answers.length) child.stdin.end();
        typing = false;
      }
    };
    child.stdout.on('data', (d) => {
      out += d;
      void pump();
    });
    child.stderr.on('data', (d) => (out += d));
    if (answers.length === 0) child.stdin.end();
    const timer = setTimeout(() => {
      out += `\n(typeAt: no prompt "${answers[next]?.[0] ?? ''}" within ${opts.timeoutMs ?? 120_000} ms; stopped)\n`;
      child.kill('SIGKILL');
    }, opts.timeoutMs ?? 120_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 124, out });
    });
  });
}
