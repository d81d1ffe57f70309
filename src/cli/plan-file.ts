/**
 * A plan read from a file, for `airlock preview --file PLAN.yaml|PLAN.json`: a list of steps
 * in the shape airlock_propose takes them, `[{action_name, params}]` (or `{steps: [...]}`),
 * in JSON or YAML (by the file's name). The file is a person's or an agent's text, so it is
 * bounded (bytes and steps) before and after parsing, YAML aliases are refused (no expansion
 * bombs), and every error says where and what to fix. The daemon checks each step again.
 */
import { parse as parseYaml } from 'yaml';
import type { ProposalStep } from '../client/proposal.js';
import { AirlockError } from '../protocol/errors.js';
import { escapeText } from '../protocol/escape-text.js';
import { MAX_PLAN_STEPS } from '../protocol/plan.js';
import { readBoundedFile } from './bounded-file.js';

/** The largest plan file read: twenty steps with a file's content each fit well under it. */
export const MAX_PLAN_FILE_BYTES = 256 * 1024;

const ACTION_NAME = /^[A-Z][A-Za-z0-9]{0,63}$/;
const SHAPE = 'a list of steps, each {action_name, params}; for example, in YAML:\n- action_name: CreateGroup\n  params: {group: deployers}\n- action_name: AddUserToGroup\n  params: {user: alice, group: deployers}';

const bad = (path: string, what: string, hint = `write ${SHAPE}`) => new AirlockError('validation', 'bad_plan_file', `${escapeText(path)}: ${what}`, hint);

/** At most MAX_PLAN_FILE_BYTES of the file: a larger one is refused without reading the rest. */
function readBounded(path: string): Buffer {
  return readBoundedFile(path, MAX_PLAN_FILE_BYTES, {
    unreadable: (code) => bad(path, `cannot read it (${code})`, 'give the path of a .yaml, .yml or .json file you can read'),
    notFile: () => bad(path, 'not a regular file', 'give the path of a .yaml, .yml or .json file'),
    tooLarge: () => bad(path, `larger than ${MAX_PLAN_FILE_BYTES / 1024} KiB`, `split it into plans of at most ${MAX_PLAN_STEPS} steps, or put less in each step`),
  });
}

function parse(path: string, text: string): unknown {
  const kind = /\.json$/i.test(path) ? 'json' : /\.ya?ml$/i.test(path) ? 'yaml' : null;
  if (!kind) throw bad(path, 'the name must end in .yaml, .yml or .json (that says how to read it)', 'rename it, e.g. plan.yaml');
  try {
    // maxAliasCount 0: a plan never needs an alias, and one could expand a small file into a large one.
    return kind === 'json' ? JSON.parse(text) : parseYaml(text, { maxAliasCount: 0, prettyErrors: true });
  } catch (e) {
    throw bad(path, `not valid ${kind.toUpperCase()}: ${escapeText((e as Error).message.split('\n')[0] ?? '')}`, `fix the ${kind.toUpperCase()} at the place named; the file holds ${SHAPE}`);
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The steps of a plan file, checked for shape (the daemon checks each action's parameters). */
export function readPlanFile(path: string): ProposalStep[] {
  const text = readBounded(path).toString('utf8');
  const doc = parse(path, text);
  const list = isObject(doc) && Object.keys(doc).length === 1 && Array.isArray(doc.steps) ? doc.steps : doc;
  if (!Array.isArray(list)) throw bad(path, 'it does not hold a list of steps');
  if (list.length === 0) throw bad(path, 'the plan has no step');
  if (list.length > MAX_PLAN_STEPS) throw bad(path, `${list.length} steps; a plan has at most ${MAX_PLAN_STEPS}`, 'split it into smaller plans');
  return list.map((s, i) => {
    const at = `step ${i + 1}`;
    if (!isObject(s)) throw bad(path, `${at} is not an object {action_name, params}`);
    const extra = Object.keys(s).filter((k) => k !== 'action_name' && k !== 'params');
    if (extra.length) throw bad(path, `${at} has ${extra.map((k) => JSON.stringify(escapeText(k))).join(', ')}: a step holds only action_name and params`, 'put the action\'s parameters under params');
    if (typeof s.action_name !== 'string' || !ACTION_NAME.test(s.action_name)) throw bad(path, `${at}: action_name must be an action's name, such as CreateGroup`, 'airlock catalogue lists them');
    const params = s.params ?? {};
    if (!isObject(params)) throw bad(path, `${at} (${s.action_name}): params must be an object of the action's parameters`, `airlock describe ${s.action_name} shows them`);
    return { action_name: s.action_name, params };
  });
}
