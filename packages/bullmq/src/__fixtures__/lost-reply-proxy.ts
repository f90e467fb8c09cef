import { createServer, type Socket, connect as tcpConnect } from 'node:net';

/** A TCP proxy in front of a redis-server that can lose the reply to one command. */
export interface LostReplyProxy {
  /** `redis://127.0.0.1:<port>` of the proxy. */
  readonly url: string;
  /**
   * The next command whose bytes contain `marker` reaches Redis (and runs), but its reply never
   * reaches the client: the proxy closes that connection instead, as a network cut would. Resolves
   * once a reply was lost.
   */
  loseReplyTo(marker: string): Promise<void>;
  close(): Promise<void>;
}

/** Starts a {@link LostReplyProxy} to the redis-server on `port` (loopback). */
export async function startLostReplyProxy(port: number): Promise<LostReplyProxy> {
  let armed: { marker: string; lost: () => void } | undefined;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = tcpConnect(port, '127.0.0.1');
    sockets.add(client);
    sockets.add(upstream);
    let sent = '';
    let awaitingReply: (() => void) | undefined;
    const cut = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('data', (chunk: Buffer) => {
      if (armed !== undefined) {
        // A command may arrive in pieces: look at what this connection sent since the last reply.
        sent += chunk.toString('latin1');
        if (sent.includes(armed.marker)) {
          awaitingReply = armed.lost;
          armed = undefined;
        }
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      sent = '';
      if (awaitingReply !== undefined) {
        const lost = awaitingReply;
        awaitingReply = undefined;
        cut();
        lost();
        return;
      }
      client.write(chunk);
    });
    for (const socket of [client, upstream]) {
      socket.on('error', cut);
      socket.on('close', () => {
        sockets.delete(socket);
        cut();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the proxy has no TCP port');
  return {
    url: `redis://127.0.0.1:${address.port}`,
    loseReplyTo(marker) {
      return new Promise((resolve) => {
        armed = { marker, lost: resolve };
      });
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
