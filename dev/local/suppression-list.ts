/**
 * LOCAL ONLY: SES's account-level suppression list, which the SES emulator
 * (aws-ses-v2-local) lacks, served on the emulator's own port at the SES v2
 * REST paths the SDK calls: ListSuppressedDestinations and
 * GetSuppressedDestination for the feedback reconciliation, and
 * PutSuppressedDestination, by which the local mailbox simulator puts a
 * bounced or complaining address there as SES does. That PUT may carry
 * `Attributes.MessageId`, which SES fills in itself from the message that
 * bounced (locally nobody else knows it).
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { answerFirst } from './service.ts';

interface Entry {
  EmailAddress: string;
  Reason: 'BOUNCE' | 'COMPLAINT';
  /** Epoch seconds: restJson1's timestamp format in bodies. */
  LastUpdateTime: number;
  Attributes?: { MessageId?: string; FeedbackId?: string };
}

const PATH = '/v2/email/suppression/addresses';
const DEFAULT_PAGE_SIZE = 1000;

function reply(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

async function bodyOf(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
}

function list(entries: Map<string, Entry>, query: URLSearchParams): { SuppressedDestinationSummaries: Omit<Entry, 'Attributes'>[]; NextToken?: string } {
  const reasons = query.getAll('Reason');
  const since = query.has('StartDate') ? Date.parse(query.get('StartDate')!) / 1000 : -Infinity;
  const until = query.has('EndDate') ? Date.parse(query.get('EndDate')!) / 1000 : Infinity;
  const matching = [...entries.values()]
    .filter((entry) => (reasons.length === 0 || reasons.includes(entry.Reason)) && entry.LastUpdateTime >= since && entry.LastUpdateTime <= until)
    .sort((a, b) => a.LastUpdateTime - b.LastUpdateTime || a.EmailAddress.localeCompare(b.EmailAddress));
  const start = Number(query.get('NextToken') ?? 0);
  const size = Number(query.get('PageSize') ?? DEFAULT_PAGE_SIZE);
  const page = matching.slice(start, start + size).map(({ Attributes: _, ...summary }) => summary);
  return { SuppressedDestinationSummaries: page, ...(start + size < matching.length ? { NextToken: String(start + size) } : {}) };
}

/** Answers the suppression-list paths on `server` before its own handler (the emulator's) sees them. */
export function serveSuppressionList(server: Server): void {
  const entries = new Map<string, Entry>();
  answerFirst(server, (request, response, url) => {
    if (url.pathname !== PATH && !url.pathname.startsWith(`${PATH}/`)) return false;
    const handle = async () => {
      if (request.method === 'PUT' && url.pathname === PATH) {
        const body = (await bodyOf(request)) as Partial<Entry>;
        const email = String(body.EmailAddress).toLowerCase();
        entries.set(email, {
          EmailAddress: email,
          Reason: body.Reason === 'COMPLAINT' ? 'COMPLAINT' : 'BOUNCE',
          LastUpdateTime: Date.now() / 1000,
          ...(body.Attributes ? { Attributes: body.Attributes } : {}),
        });
        reply(response, 200, {});
      } else if (request.method === 'GET' && url.pathname === PATH) {
        reply(response, 200, list(entries, url.searchParams));
      } else if (request.method === 'GET') {
        const entry = entries.get(decodeURIComponent(url.pathname.slice(PATH.length + 1)).toLowerCase());
        if (entry) reply(response, 200, { SuppressedDestination: entry });
        else reply(response, 404, { message: 'Email address not on the suppression list' });
      } else {
        reply(response, 405, { message: 'Not supported by the local suppression list' });
      }
    };
    handle().catch((error: unknown) => reply(response, 400, { message: String(error) }));
    return true;
  });
}
