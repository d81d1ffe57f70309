/**
 * A local HTTP page as a hostile local page or process reaches it: a port free now on this
 * machine, and raw requests with whatever Host, Origin and body the caller chooses (a browser
 * would not let a page set them; a process can).
 */
import { createServer, request } from 'node:http';

/** A loopback port free on this machine now (a test's page listens there next). */
export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

/** One request to 127.0.0.1:PORT, `Host: localhost:PORT` unless the headers say otherwise. */
export function ask(port: number, path: string, o: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: o.method ?? 'GET', headers: { Host: `localhost:${port}`, ...o.headers } }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(o.body);
  });
}
