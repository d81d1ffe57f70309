/**
 * Colour, only on a TTY without NO_COLOR: the CLI's terminal, and nothing for the MCP
 * server, whose stdout is a pipe of MCP frames. Paint is added after escaping, never before.
 */
const useColour = process.stdout.isTTY && !process.env.NO_COLOR;
const paint = (code: string) => (s: string) => (useColour ? `\x1b[${code}m${s}\x1b[0m` : s);
export const c = { bold: paint('1'), dim: paint('2'), red: paint('31'), green: paint('32'), yellow: paint('33'), blue: paint('34'), magenta: paint('35'), cyan: paint('36') };

export const riskColour = (risk: string) => (risk === 'high' ? c.red(risk) : risk === 'medium' ? c.yellow(risk) : c.green(risk));
export const stateColour = (s: string) => (s === 'Succeeded' ? c.green(s) : ['Failed', 'RolledBack', 'Canceled'].includes(s) ? c.red(s) : c.yellow(s));
