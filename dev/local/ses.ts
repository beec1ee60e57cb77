/**
 * The SES v2 emulator (npm `aws-ses-v2-local`), in this process: it keeps sent
 * emails in memory, lists them at `/` and returns them as JSON at `GET /store`;
 * the account-level suppression list is ours (./suppression-list.ts).
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { stopServer, type LocalService } from './service.ts';
import { serveSuppressionList } from './suppression-list.ts';

type ServerFactory = (config: { host: string; port: number }) => Promise<Server>;

/**
 * The factory is `exports.default` of a CommonJS module: Node's ESM loader
 * puts the exports object at `.default`, vitest hands over the object itself.
 */
async function loadFactory(): Promise<ServerFactory> {
  const mod = (await import('aws-ses-v2-local')) as unknown as { default?: unknown };
  const candidates = [(mod.default as { default?: unknown } | undefined)?.default, mod.default, mod];
  const factory = candidates.find((candidate) => typeof candidate === 'function');
  if (!factory) throw new Error('aws-ses-v2-local exports no server factory');
  return factory as ServerFactory;
}

/** Starts the emulator on 127.0.0.1 (its own default is every interface); port 0 picks a free one. */
export async function startSesEmulator(options: { port: number; host?: string }): Promise<LocalService> {
  const host = options.host ?? '127.0.0.1';
  const server = await (await loadFactory())({ host, port: options.port });
  // Express hands a listen error to the callback the emulator ignores, so it resolves either way.
  if (!server.listening) {
    server.close();
    throw new Error(`The SES emulator could not listen on ${host}:${options.port} (port in use?)`);
  }
  serveSuppressionList(server);
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://${host}:${port}`,
    stop: () => stopServer(server),
  };
}
