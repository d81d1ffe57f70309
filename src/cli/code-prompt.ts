/**
 * Asking a person for a code from their authenticator app, at their terminal, only when the
 * daemon says one is needed (or the one typed was wrong), a few times at most. The terminal
 * is opened only then, so a refusal that needs no code is shown without one.
 */
import { AirlockError } from '../protocol/errors.js';
import type { Terminal } from './terminal.js';
import { c } from './ui.js';

/** Codes a person may type for one request before the command gives up (the daemon counts wrong ones too). */
const CODE_ATTEMPTS = 3;
export const OWN_CODE_PROMPT = 'Code from your authenticator app (not shown): ';

/** Sends `first` (or nothing), asking on `term()` without echo for a code when the daemon says one is needed. */
export async function withCode<T>(term: () => Terminal, prompt: string, send: (code?: string) => Promise<T>, first?: string): Promise<T> {
  let code = first;
  for (let attempt = 0; ; attempt++) {
    try {
      return await send(code);
    } catch (e) {
      const retry = e instanceof AirlockError && (e.code === 'totp_required' || e.code === 'totp_invalid' || e.code === 'totp_spent') && attempt < CODE_ATTEMPTS;
      if (!retry) throw e;
      if (e.code !== 'totp_required') term().write(c.yellow(`${e.message}\n`));
      code = term().askHidden(prompt).replace(/\s+/g, '');
    }
  }
}

/** `send` with the caller's own code, asked at their terminal (opened on first need, closed after). */
export async function withOwnCode<T>(need: string, hint: string, send: (code?: string) => Promise<T>): Promise<T> {
  const { Terminal } = await import('./terminal.js');
  let term: Terminal | undefined;
  try {
    return await withCode(() => (term ??= Terminal.open(need, hint)), OWN_CODE_PROMPT, send);
  } finally {
    term?.close();
  }
}
