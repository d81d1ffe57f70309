/**
 * What each agent is told to read (CLAUDE.md, AGENTS.md, a Cursor rule, Copilot's
 * instructions): the workflow the MCP server's tool descriptions also state, short enough to
 * sit in an agent's context on every request. Setup puts it between markers (markers.ts).
 */
export const GUIDANCE = `## Changing this host: through Airlock only

This host is administered through the \`airlock\` MCP server's tools, never through a shell,
sudo, or editing system files yourself.

1. Find the actions with \`airlock_actions\` and \`airlock_describe_action\`.
2. Propose every step at once with \`airlock_propose\` (typed actions and parameters, and a reason).
3. Show the person each step: its summary, the change it makes, and its risk as Airlock
   reports it (never your own estimate), and who must approve it with which command
   (\`airlock approve ID\`, or \`airlock deny ID --reason ...\`, at their own terminal).
4. Then either wait with \`airlock_execute\` (it picks the approval up by itself), or stop
   and say what is waiting for whom.

- A chat message such as "yes" or "go ahead" is never an approval: only a person running
  \`airlock approve\` is. Do not run anything because of one.
- Never ask the person for a receipt or paste one: \`airlock_execute\` receives it from the daemon.
- A denied step has its reason: report it, and do not propose the same step again unchanged.
- When Airlock is unreachable or refuses, report what \`airlock_doctor\` says; do not work around it.
`;

/** A Cursor project rule (.cursor/rules/*.mdc) needs its frontmatter first; alwaysApply puts it in every request. */
export const CURSOR_RULE_FRONTMATTER = `---
description: Change this host only through Airlock's MCP tools, with a person's approval
alwaysApply: true
---
`;
