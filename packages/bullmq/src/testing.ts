import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';

/** A `redis-server` started for tests. */
export interface RedisServer {
  /** `redis://127.0.0.1:<port>` */
  url: string;
  port: number;
  /** The server process (SIGKILL it to simulate a crash of Redis itself). */
  process: ChildProcess;
  /** Stops the server (SIGTERM, then SIGKILL after 3 s) and waits for it to exit. */
  stop(): Promise<void>;
}

/** Options of {@link startRedisServer}. */
export interface StartRedisServerOptions {
  /** The `redis-server` binary. Default: `/usr/bin/redis-server`, else `redis-server` on `PATH`. */
  binary?: string;
  /** How long to wait for "Ready to accept connections". Default 10 000 ms. */
  timeoutMs?: number;
  /**
   * The port. Default: a free one. Give the port of a server that died to start its replacement
   * where clients reconnect (a Redis restart).
   */
  port?: number;
  /**
   * Persist to an append-only file in this folder (`appendfsync always`): a server restarted on
   * the same folder finds every acknowledged write again. Default: no persistence.
   */
  persistDir?: string;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function launch(
  binary: string,
  port: number,
  timeoutMs: number,
  persistDir: string | undefined,
): Promise<RedisServer> {
  const child = spawn(
    binary,
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      ...(persistDir === undefined
        ? ['--appendonly', 'no']
        : ['--appendonly', 'yes', '--appendfsync', 'always', '--dir', persistDir]),
      '--daemonize',
      'no',
      '--loglevel',
      'notice',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
    await exited;
    clearTimeout(timer);
  };
  return new Promise<RedisServer>((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`redis-server did not start within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        resolve({ url: `redis://127.0.0.1:${port}`, port, process: child, stop });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with code ${code} before it was ready:\n${output}`));
    });
  });
}

/**
 * Starts a private `redis-server` for tests: a free loopback port (or `port`), no persistence
 * (no RDB, no AOF; or an AOF in `persistDir`), stopped by `stop()`. Needs Redis installed (Debian: `apt-get install redis-server`).
 *
 * @example
 * const redis = await startRedisServer();
 * const store = createRedisRunStore({ connection: redis.url });
 * // …
 * await store.close();
 * await redis.stop();
 */
export async function startRedisServer(options: StartRedisServerOptions = {}): Promise<RedisServer> {
  const binary =
    options.binary ?? (existsSync('/usr/bin/redis-server') ? '/usr/bin/redis-server' : 'redis-server');
  const timeoutMs = options.timeoutMs ?? 10_000;
  let lastError: unknown;
  // Another process may take the port between probing and binding: try a few.
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      return await launch(binary, options.port ?? (await freePort()), timeoutMs, options.persistDir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        throw new Error(
          `redis-server is not installed (tried "${binary}"). Install it: apt-get install redis-server.`,
        );
      }
      lastError = error;
    }
  }
  throw lastError;
}
