/**
 * The SES v2 emulator (npm `aws-ses-v2-local`), in this process: it keeps sent
 * emails in memory, lists them at `/` and returns them as JSON at `GET /store`
 * (`?from=<domain>` or `?to=<address>`: only those, our addition); the
 * account-level suppression list is ours (./suppression-list.ts).
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { answerFirst, stopServer, type LocalService } from './service.ts';
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

/**
 * The SES rate the emulator reports (GetAccount's `SendQuota.MaxSendRate`):
 * high, so that locally pacing binds only when an account has a send rate of
 * its own or SES_MAX_SEND_RATE sets a real account's rate.
 */
export const LOCAL_SES_MAX_SEND_RATE = 1_000;

/** The account GetAccount answers: the emulator reads it from its process's AWS_SES_ACCOUNT, whole (its schema wants every field). */
function emulatedAccount(maxSendRate: number): string {
  return JSON.stringify({
    DedicatedIpAutoWarmupEnabled: false,
    Details: {
      AdditionalContactEmailAddresses: [],
      ContactLanguage: 'EN',
      MailType: 'MARKETING',
      ReviewDetails: { CaseId: 'local', Status: 'GRANTED' },
      UseCaseDescription: 'Postlane, locally',
      WebsiteURL: 'http://127.0.0.1',
    },
    EnforcementStatus: 'HEALTHY',
    ProductionAccessEnabled: true,
    SendingEnabled: true,
    SendQuota: { Max24HourSend: maxSendRate * 86_400, MaxSendRate: maxSendRate, SentLast24Hours: 0 },
    SuppressionAttributes: { SuppressedReasons: ['BOUNCE', 'COMPLAINT'] },
  });
}

/**
 * Starts the emulator on 127.0.0.1 (its own default is every interface); port 0 picks a free one.
 * `maxSendRate`: what its GetAccount reports; one value per process, as the emulator reads it from the environment.
 */
export async function startSesEmulator(options: { port: number; host?: string; maxSendRate?: number }): Promise<LocalService> {
  const host = options.host ?? '127.0.0.1';
  process.env.AWS_SES_ACCOUNT = emulatedAccount(options.maxSendRate ?? LOCAL_SES_MAX_SEND_RATE);
  const server = await (await loadFactory())({ host, port: options.port });
  // Express hands a listen error to the callback the emulator ignores, so it resolves either way.
  if (!server.listening) {
    server.close();
    throw new Error(`The SES emulator could not listen on ${host}:${options.port} (port in use?)`);
  }
  serveSuppressionList(server);
  serveStoreSearch(server);
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://${host}:${port}`,
    stop: () => stopServer(server),
  };
}

interface EmulatedEmail {
  from: string;
  destination: { to: string[] };
}

/**
 * `GET /store?from=example.com` (the sender's domain) or `?to=ann@example.org`
 * (a recipient): the emails matching, in the order sent, in the shape of
 * `GET /store`. The emulator's own answer serializes every email it holds;
 * over a test run that is thousands, and the tests ask for one sender's or
 * one inbox's, many times each while they wait for a message.
 */
function serveStoreSearch(server: Server): void {
  // The emulator's own module, the one holding what it stored: a CommonJS module of the package, loaded by require.
  const { getStoreReadonly } = createRequire(import.meta.url)('aws-ses-v2-local/dist/store.js') as {
    getStoreReadonly(): { emails: EmulatedEmail[] };
  };
  answerFirst(server, (request, response, url) => {
    const from = url.searchParams.get('from')?.toLowerCase();
    const to = url.searchParams.get('to')?.toLowerCase();
    if (request.method !== 'GET' || url.pathname !== '/store' || (from === undefined && to === undefined)) return false;
    const emails = getStoreReadonly().emails.filter(
      (email) =>
        (from === undefined || email.from.toLowerCase().replace(/>$/, '').endsWith(`@${from}`)) &&
        (to === undefined || email.destination.to.some((address) => address.toLowerCase() === to)),
    );
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ templates: {}, emails }));
    return true;
  });
}
