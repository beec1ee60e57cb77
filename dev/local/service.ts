import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A part of the local stack (DynamoDB Local, the SES emulator, the local S3, the HTTP API) that `npm start` and the tests run. */
export interface LocalService {
  endpoint: string;
  stop(): Promise<void>;
}

/** Closes the server and its open connections (keep-alive ones would hold it open). */
export function stopServer(server: Server): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.close((error) => (error ? reject(error) : resolve()));
    server.closeAllConnections();
  });
}

/** Listens on `host:port` (port 0: any free one); resolves once bound, rejects when the port is taken. */
export async function listenLocally(server: Server, port: number, host: string): Promise<LocalService & { port: number }> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  return { endpoint: `http://${host}:${bound}`, port: bound, stop: () => stopServer(server) };
}

type RequestListener = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * Lets `answer` take the requests it wants before the server's own handler
 * (a package's, such as the SES emulator's) sees them: `answer` returns
 * whether it took the request.
 */
export function answerFirst(server: Server, answer: (request: IncomingMessage, response: ServerResponse, url: URL) => boolean): void {
  const [own] = server.listeners('request') as RequestListener[];
  server.removeAllListeners('request');
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    if (!answer(request, response, new URL(request.url ?? '/', 'http://local'))) own!(request, response);
  });
}
