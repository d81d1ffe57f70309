/** Setup's output: a plan or a result for a person, or one JSON object for a script. */
import { escapeText } from '../../protocol/escape-text.js';
import { c } from '../ui.js';
import type { Check } from './checks.js';
import type { Action, ClientStep } from './plan.js';
import type { ServerSpec } from './server.js';

export interface Report {
  dryRun: boolean;
  uninstall: boolean;
  scope: 'project' | 'user';
  project: string;
  server: ServerSpec;
  steps: ClientStep[];
  checks: Check[] | null;
}

const MARK: Record<Action, string> = {
  create: c.green('+ create   '),
  update: c.yellow('~ update   '),
  unchanged: c.dim('= unchanged'),
  remove: c.yellow('- remove   '),
  delete: c.yellow('- delete   '),
  refused: c.red('✗ refused  '),
  held: c.red('✗ held     '),
};

/** Paths and reasons quote file contents and names the person chose: escaped like all text. */
const e = (s: string) => escapeText(s);

export function renderPlan(r: Report): string {
  const out: string[] = [];
  const what = r.uninstall ? 'remove what airlock setup added' : `configure the "airlock" MCP server (${r.scope} scope${r.scope === 'project' ? `: ${e(r.project)}` : ''})`;
  out.push(`${c.bold('airlock setup')}: ${what}${r.dryRun ? c.yellow('  [dry run: nothing is written]') : ''}`);
  for (const s of r.steps) {
    out.push('', `${c.bold(s.client.name)}${s.detected ? c.dim(`  (found: ${e(s.detected)})`) : ''}`);
    for (const f of s.files) {
      out.push(`  ${MARK[f.action]} ${e(f.shown)}${c.dim(`  ${f.kind === 'mcp' ? 'server' : 'guidance'}`)}${f.mode ? c.dim(`  mode ${f.mode}`) : ''}`);
      if (f.reason) out.push(`      ${e(f.reason)}`);
      if (f.note) out.push(`      ${c.dim(e(f.note))}`);
    }
    if (!r.uninstall) for (const n of s.notes) out.push(`  ${c.dim(`note: ${e(n)}`)}`);
  }
  if (!r.uninstall) {
    const env = Object.entries(r.server.env).map(([k, v]) => `${k}=${v}`);
    out.push('', `${c.dim('the server runs')} ${e([r.server.command, ...r.server.args].join(' '))}${env.length ? c.dim(`  with ${e(env.join(' '))}`) : ''}`);
  }
  return out.join('\n') + '\n';
}

export function renderChecks(checks: Check[]): string {
  return ['', c.bold('checks'), ...checks.map((k) => `  ${k.ok ? c.green('✓') : c.red('✗')} ${k.name}: ${e(k.detail)}`)].join('\n') + '\n';
}

export function renderNext(r: Report): string {
  const configured = r.steps.filter((s) => s.files.every((f) => f.action !== 'refused' && f.action !== 'held'));
  if (r.uninstall || r.dryRun || configured.length === 0) return '';
  return (
    '\n' +
    [
      ...configured.map((s) => `${c.cyan('next')}  ${s.client.name}: ${s.client.next}`),
      `${c.cyan('then')}  ask the agent for a change to this host: it proposes typed steps (airlock_propose) and shows you each one with its risk`,
      `${c.cyan('you')}   approve at your own terminal, as yourself: ${c.bold('airlock approve tx_...')}   or refuse: ${c.bold('airlock deny tx_... --reason "..."')}`,
      `      the agent, waiting in airlock_execute, then runs the approved steps or reports your reason; a "yes" in the chat approves nothing`,
    ].join('\n') +
    '\n'
  );
}

export function reportJson(r: Report, ok: boolean): unknown {
  return {
    ok,
    dry_run: r.dryRun,
    uninstall: r.uninstall,
    scope: r.scope,
    project: r.project,
    server: r.server,
    clients: r.steps.map((s) => ({
      client: s.client.id,
      name: s.client.name,
      detected: s.detected,
      files: s.files.map((f) => ({ path: f.path, kind: f.kind, action: f.action, ...(f.reason ? { reason: f.reason } : {}), ...(f.note ? { note: f.note } : {}), ...(f.mode ? { mode: f.mode } : {}) })),
      notes: s.notes,
    })),
    checks: r.checks,
  };
}
