/**
 * Generates docs/actions.md from the catalogue (src/catalogue/index.ts): one
 * section per family, one entry per action with its risk, minimum role, flags,
 * platforms, parameters (from the JSON Schema the daemon also serves through
 * `actions.describe`), the files it may touch and its example parameters.
 *
 * The output depends on the catalogue alone (no clock, no host, no locale), so
 * test/unit/actions-doc.test.ts can compare the committed file with a fresh
 * rendering. Run `npm run docs` after changing an action.
 */
import { writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { z } from 'zod';
import { FAMILIES, type AnyAction } from '../src/catalogue/action.js';
import { CATALOGUE } from '../src/catalogue/index.js';
import { minRoleForRisk } from '../src/protocol/risk.js';

export const ACTIONS_DOC_PATH = join(dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'actions.md');

type Schema = {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
  format?: string;
  default?: unknown;
};

const yesNo = (b: boolean) => (b ? 'yes' : 'no');
/** How a change is undone (src/catalogue/rollback.ts); a read has nothing to undo. */
const rollbackCell = (a: AnyAction) => (a.readOnly ? '—' : a.rollback.class === 'compensating' ? `compensating (${a.rollback.inverse})` : a.rollback.class);
/** The read-only cell: `no` for a change; for a read, `yes` plus what it declares (sensitive, network). */
const readCell = (a: AnyAction) => (a.readOnly ? ['yes', ...(a.sensitive ? ['sensitive'] : []), ...(a.reachesNetwork ? ['network'] : [])].join(', ') : 'no');
/** Escapes what would break a Markdown table cell. */
const cell = (s: string) => s.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\n/g, ' ');
const code = (s: string) => '`' + s.replace(/`/g, "'") + '`';

function typeOf(s: Schema): string {
  if (s.const !== undefined) return code(JSON.stringify(s.const));
  if (s.enum) return s.enum.map((v) => code(JSON.stringify(v))).join(' or ');
  const alts = s.anyOf ?? s.oneOf;
  if (alts) return alts.map(typeOf).join(' or ');
  if (s.type === 'array') return `array of ${s.items ? typeOf(s.items) : 'any'}`;
  if (Array.isArray(s.type)) return s.type.join(' or ');
  return s.type ?? 'any';
}

function range(min: number | undefined, max: number | undefined, unit: string): string | null {
  if (min === undefined && max === undefined) return null;
  if (min !== undefined && max !== undefined) return min === max ? `exactly ${min} ${unit}` : `${min} to ${max} ${unit}`;
  return min !== undefined ? `at least ${min} ${unit}` : `at most ${max} ${unit}`;
}

function constraints(s: Schema): string[] {
  const out: string[] = [];
  const alts = s.anyOf ?? s.oneOf;
  if (alts) {
    for (const a of alts) {
      const c = constraints(a);
      if (c.length) out.push(`${typeOf(a)}: ${c.join(', ')}`);
    }
    return out;
  }
  const chars = range(s.minLength, s.maxLength, 'characters');
  if (chars) out.push(chars);
  const items = range(s.minItems, s.maxItems, 'items');
  if (items) out.push(items);
  if (s.minimum !== undefined) out.push(`>= ${s.minimum}`);
  if (s.exclusiveMinimum !== undefined) out.push(`> ${s.exclusiveMinimum}`);
  if (s.maximum !== undefined) out.push(`<= ${s.maximum}`);
  if (s.exclusiveMaximum !== undefined) out.push(`< ${s.exclusiveMaximum}`);
  if (s.pattern !== undefined) out.push(`matches ${code(s.pattern)}`);
  if (s.format !== undefined) out.push(`format ${s.format}`);
  if (s.default !== undefined) out.push(`default ${code(JSON.stringify(s.default))}`);
  if (s.type === 'array' && s.items) {
    const each = constraints(s.items);
    if (each.length) out.push(`each item: ${each.join(', ')}`);
  }
  return out;
}

function paramsTable(a: AnyAction): string[] {
  const schema = z.toJSONSchema(a.params) as Schema;
  const props = Object.entries(schema.properties ?? {});
  if (props.length === 0) return ['Parameters: none (the parameter object must be `{}`).'];
  const required = new Set(schema.required ?? []);
  return [
    'Parameters (unknown keys are refused):',
    '',
    '| name | type | required | constraints |',
    '|---|---|---|---|',
    ...props.map(([name, p]) => `| ${code(name)} | ${cell(typeOf(p))} | ${yesNo(required.has(name))} | ${cell(constraints(p).join('; ') || '-')} |`),
  ];
}

function renderAction(a: AnyAction): string[] {
  const lines = [
    `### ${a.name}`,
    '',
    a.description,
    '',
    '| risk | min role | read-only | reboot | rollback | platforms |',
    '|---|---|---|---|---|---|',
    `| ${a.risk} | ${minRoleForRisk(a.risk)} | ${readCell(a)} | ${yesNo(a.reboot)} | ${rollbackCell(a)} | ${a.platforms.join(', ')} |`,
    '',
    ...paramsTable(a),
    '',
    a.files.length ? `Files it may touch: ${a.files.map(code).join(', ')}.` : 'Files it may touch: none through file steps (commands only).',
    '',
    ...(a.rebuildsAtExecute
      ? [`Rebuilds at execution: ${a.rebuildsAtExecute.files.map(code).join(', ')} (keeps the lines other programs changed since the preview; the approval binds the lines this action removes and adds).`, '']
      : []),
    'Example:',
    '',
    '```sh',
    `airlock preview ${a.name} --params '${JSON.stringify(a.example).replace(/'/g, "'\\''")}'`,
    '```',
    '',
  ];
  return lines;
}

/** The whole of docs/actions.md. Pure and deterministic. */
export function renderActionsDoc(): string {
  const actions = [...CATALOGUE.values()];
  const byFamily = new Map<string, AnyAction[]>(FAMILIES.map((f) => [f, []]));
  for (const a of actions) {
    if (!byFamily.has(a.family)) byFamily.set(a.family, []);
    byFamily.get(a.family)!.push(a);
  }
  for (const list of byFamily.values()) list.sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
  const populated = [...byFamily.entries()].filter(([, list]) => list.length > 0);
  const empty = [...byFamily.entries()].filter(([, list]) => list.length === 0).map(([f]) => f);
  const count = (risk: string) => actions.filter((a) => a.risk === risk).length;

  const out: string[] = [
    '# Action catalogue',
    '',
    '<!-- Generated by scripts/gen-actions-doc.ts from src/catalogue. Do not edit by hand: run `npm run docs`. -->',
    '',
    `Airlock knows exactly ${actions.length} actions in ${populated.length} families ` +
      `(${count('low')} low, ${count('medium')} medium and ${count('high')} high risk). ` +
      'An action name outside this list does not exist for the daemon (LACS 0.1 section 2.1).',
    '',
    'How to read an entry:',
    '',
    '- **risk** is the catalogue value. A host may raise it (never lower it) in the root-owned',
    '  policy ([risk] in /etc/airlock/policy.toml); `airlock describe ACTION` and the `actions.describe` method show the value in force.',
    '- **min role** follows from the risk (low: observer, medium: dev, high: admin). It is needed to preview',
    '  and to execute; approving needs the approver capability and the same role. The `boot` role (airlock-boot)',
    '  has no action of its own and reaches what an observer does (docs/security.md, section 2.3).',
    '- **reboot** yes: the change takes effect with a reboot. Its transaction ends `NeedsReboot`, and the daemon,',
    '  started in the next boot, makes it `Succeeded` with a signed `reboot_reconciled` entry (docs/audit.md, "Reboots").',
    '- **read-only** actions change nothing on the host. They still go through preview, approval and',
    '  execution, and each step is logged. Each read declares two more facts, shown after `yes`:',
    '  **sensitive** (its output can hold what a person should see first: file contents, logs, command',
    '  lines, environments, security policy, other users\' activity) and **network** (it sends packets to a',
    '  host the request names). The policy\'s `reads` rule approves a Low read by itself only when it is not',
    '  sensitive, and a network read only for a Unix user on the host, never for a token principal.',
    '- **rollback** says whether the action declares how to reverse itself. When a step fails, the executor',
    '  restores every file it changed and runs the declared undo of each command step that completed',
    '  (see docs/architecture.md); a failed single command is not undone.',
    '- **parameters** come from the JSON Schema of the parameter validator (`z.toJSONSchema`). The daemon',
    '  applies more checks than the schema can express (character sets, no leading `-`, no control',
    '  characters, path allowlists, real dates, well-formed SSH keys, ...): a value that fits the schema can',
    '  still be refused with a `validation/bad_params` error that says why.',
    '- **files it may touch** is the allowlist of paths (globs, `*` = one or more characters within one',
    '  path segment) that file steps may read or write. The executor refuses any other path.',
    '- **rebuilds at execution** names the files whose new content the action derives from their content at',
    '  execution, keeping lines other programs added meanwhile. The approval binds exactly the lines the action',
    '  removes and adds there (the preview shows them); every other file step is bound byte for byte',
    '  (docs/security.md, "What runs is what was approved").',
    '',
    '## Summary',
    '',
    '| action | family | risk | min role | read-only | reboot | rollback |',
    '|---|---|---|---|---|---|---|',
    ...populated.flatMap(([, list]) =>
      list.map((a) => `| [${a.name}](#${a.name.toLowerCase()}) | ${a.family} | ${a.risk} | ${minRoleForRisk(a.risk)} | ${readCell(a)} | ${yesNo(a.reboot)} | ${rollbackCell(a)} |`),
    ),
    '',
  ];
  if (empty.length) {
    out.push(`Families declared but without actions yet: ${empty.join(', ')}.`, '');
  }
  for (const [family, list] of populated) {
    out.push(`## ${family}`, '', `${list.length} action${list.length === 1 ? '' : 's'}.`, '');
    for (const a of list) out.push(...renderAction(a));
  }
  return out.join('\n').replace(/\n+$/, '\n');
}

const invokedDirectly = process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href;
if (invokedDirectly) {
  const text = renderActionsDoc();
  writeFileSync(ACTIONS_DOC_PATH, text);
  process.stdout.write(`wrote ${ACTIONS_DOC_PATH} (${CATALOGUE.size} actions)\n`);
}
