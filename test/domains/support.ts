/**
 * DNS and SES as the deployed verifier sees them. Neither can be played by a
 * local peer (the SES emulator has no identity commands, and tests own no
 * DNS zone), so stand-ins answer in their shapes.
 */
import type { SESv2Client } from '@aws-sdk/client-sesv2';
import { getDomain } from '#shared/data/domains.ts';
import type { TxtResolver } from '#shared/domain/domain-verification.ts';

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
