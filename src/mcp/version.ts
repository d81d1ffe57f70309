/** The server's version as MCP clients see it: the package's (src/cli/main.ts prints the same). */
export const VERSION = '0.1.0';
