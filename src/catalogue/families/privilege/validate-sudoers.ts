/** A check of the whole sudo policy with visudo --check. */
import { action } from '../../action.js';
import { command } from '../../mechanism.js';
import { params } from '../../params.js';
import { diagnostics } from '../../lib/checker-output.js';
import { readSudo, refuseWithoutSudo } from './sudo-state.js';

/** visudo's own diagnoses: `FILE:LINE:COL: message` or `FILE: message`. Not the policy line it echoes after a syntax error, nor the caret under it. */
const VISUDO_DIAGNOSIS = /^\/[^\s:]+:(\d+:\d+:)? \S/;

export const validateSudoers = action({
  name: 'ValidateSudoers',
  family: 'privilege',
  description: 'Check the whole sudo policy (/etc/sudoers and every file it includes) with visudo --check: syntax, ownership and modes. Succeeds when sudo would accept it; fails with the first error otherwise.',
  risk: 'low',
  readOnly: true,
  // Sensitive: visudo quotes the offending sudoers line when the policy has a syntax error.
  sensitive: true,
  reachesNetwork: false,
  params: params({}),
  files: [],
  example: {},
  current: async (_p, host) => {
    const sudo = await readSudo(host, false);
    return { sudo, problems: sudo.installed ? diagnostics(await host.run('visudo', ['--check']), VISUDO_DIAGNOSIS) : [] };
  },
  check: (_p, cur) => refuseWithoutSudo(cur.sudo),
  preview: (_p, cur) => ({
    summary: 'Check the whole sudo policy with visudo --check',
    change: null,
    // File, line and message only: the preview quotes no policy text.
    warnings: cur.problems.map((p) => `visudo reports now: ${p}`),
  }),
  mechanism: () => [command('visudo', ['--check'])],
});
