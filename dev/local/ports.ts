import { createServer } from 'node:net';

function listenOnce(port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen({ port, host, exclusive: true }, () => {
      const address = server.address();
      const bound = typeof address === 'object' && address ? address.port : port;
      server.close(() => resolve(bound));
    });
  });
}

/**
 * True when nothing listens on `port`, neither on the loopback address nor on
 * every interface (DynamoDB Local binds 0.0.0.0, so a port taken there counts).
 */
export async function isPortFree(port: number): Promise<boolean> {
  try {
    await listenOnce(port, '127.0.0.1');
    await listenOnce(port, '0.0.0.0');
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') return false;
    throw error;
  }
}

/** A port the OS reports free right now, for a child that must be told its port up front (DynamoDB Local). */
export function findFreePort(): Promise<number> {
  return listenOnce(0, '127.0.0.1');
}

/**
 * A port near `taken` that is free right now and none of `reserved` (the
 * stack's other ports), for the "set X to a free port" hint; undefined when
 * none of the next few is, rather than a guess that fails again.
 */
export async function suggestFreePort(taken: number, reserved: number[], tries = 20): Promise<number | undefined> {
  for (let candidate = taken + 1; candidate <= Math.min(taken + tries, 65_535); candidate++) {
    if (!reserved.includes(candidate) && (await isPortFree(candidate))) return candidate;
  }
  return undefined;
}
