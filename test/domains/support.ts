/**
 * DNS and SES as the deployed verifier sees them. Neither can be played by a
 * local peer (the SES emulator has no identity commands, and tests own no
 * DNS zone), so stand-ins answer in their shapes.
 */
import { setTimeout } from 'node:timers/promises';
import type { SESv2Client } from '@aws-sdk/client-sesv2';
import { getDomain } from '#shared/domains/store.ts';
import type { TxtResolver } from '#shared/domains/verification.ts';
import { randomBase62 } from '#shared/platform/ids.ts';

/** DNS answering TXT lookups from a table of names, each record in its strings as node:dns gives them; other names do not exist. */
export function fakeDns(records: Record<string, string[][]> = {}): TxtResolver & { asked: string[] } {
  const asked: string[] = [];
  return Object.assign(
    async (name: string) => {
      asked.push(name);
      const found = records[name];
      if (!found) throw Object.assign(new Error(`queryTxt ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
      return found;
    },
    { asked },
  );
}

/** SES giving one answer to every command, noting what was asked. */
export function fakeSes(answer: () => Promise<unknown>): Pick<SESv2Client, 'send'> & { asked: unknown[] } {
  const asked: unknown[] = [];
  return {
    asked,
    send: (async (command: { input: unknown }) => {
      asked.push(command.input);
      return answer();
    }) as unknown as SESv2Client['send'],
  };
}

/** SES whose identity reads as verified for sending, or not. */
export const sesSaying = (verified: boolean) => fakeSes(async () => ({ VerifiedForSendingStatus: verified }));

/** The TXT value that proves the account's ownership of a domain it has added. */
export async function proofOf(accountId: string, domain: string): Promise<string> {
  return `postlane-verification=${(await getDomain(accountId, domain))!.verificationToken}`;
}

/**
 * SES's identities as the deployed verifier meets them, kept in a map: create
 * answers AlreadyExists for one that exists, each creation gets tokens of its
 * own, delete removes it (NotFound when absent) after `deleteMs`, as a real
 * call takes time. `deleteStarted` is told when a delete arrives, and
 * `beforeDelete` runs at the moment SES removes the identity, for a test to
 * act during the call and look at the table then.
 */
export function sesIdentities(
  options: { existing?: string[]; deleteMs?: number; deleteStarted?: (domain: string) => void; beforeDelete?: (domain: string) => Promise<void> } = {},
) {
  const identities = new Map<string, string[]>((options.existing ?? []).map((domain) => [domain, newTokens()]));
  const calls: [string, string][] = [];
  const failure = (name: string) => Object.assign(new Error(name), { name });
  const client: Pick<SESv2Client, 'send'> = {
    send: (async (command: { constructor: { name: string }; input: { EmailIdentity: string } }) => {
      const name = command.constructor.name.replace(/Command$/, '');
      const domain = command.input.EmailIdentity;
      calls.push([name, domain]);
      const tokens = identities.get(domain);
      if (name === 'CreateEmailIdentity') {
        if (tokens) throw failure('AlreadyExistsException');
        identities.set(domain, newTokens());
        return { VerifiedForSendingStatus: false, DkimAttributes: { Tokens: identities.get(domain), Status: 'PENDING' } };
      }
      if (!tokens) throw failure('NotFoundException');
      if (name === 'GetEmailIdentity') return { VerifiedForSendingStatus: false, DkimAttributes: { Tokens: tokens, Status: 'PENDING' } };
      options.deleteStarted?.(domain);
      await setTimeout(options.deleteMs ?? 0);
      await options.beforeDelete?.(domain);
      identities.delete(domain);
      return {};
    }) as unknown as SESv2Client['send'],
  };
  return { client, identities, calls, deleted: () => calls.filter(([name]) => name === 'DeleteEmailIdentity').map(([, domain]) => domain) };
}

function newTokens(): string[] {
  return [0, 1, 2].map(() => randomBase62(32).toLowerCase());
}

/** A domain name no other test uses. */
export function uniqueDomain(label = 'd'): string {
  return `${label}${randomBase62(10).toLowerCase()}.example.com`;
}
