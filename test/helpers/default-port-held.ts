// A global setup for vitest and Playwright: holds the receiver's well-known default port (what an
// installed companion on the same machine listens on) for the whole run, so every test proves it
// needs no fixed port to be free. When the port is already taken, something else holds it: the same.
import { createServer, type Server } from 'node:net';
import { DEFAULT_TUNNEL_PORT } from '../../src-shared/limits';

/** Listens on 127.0.0.1:port; null when the port is taken (by whoever: held all the same). */
function holdPort(port: number): Promise<Server | null> {
  return new Promise((resolve, reject) => {
    const server = createServer((socket) => socket.destroy());
    server.once('error', (err: NodeJS.ErrnoException) => (err.code === 'EADDRINUSE' ? resolve(null) : reject(err)));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => resolve(server));
  });
}

export default async function holdDefaultPorts(): Promise<() => Promise<void>> {
  const held = await holdPort(DEFAULT_TUNNEL_PORT);
  return () => new Promise<void>((resolve) => (held ? held.close(() => resolve()) : resolve()));
}
