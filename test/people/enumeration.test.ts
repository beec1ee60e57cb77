/**
 * Asking for a code, or trying one, tells nobody whether an address is a
 * member's: the answer is the same, and so are the calls the request makes
 * to DynamoDB, SES and SQS, which is what its time is made of (a wall-clock
 * comparison would only measure this machine's noise). No mail worker runs
 * here: the calls counted are the request's own.
 */
import { describe, expect, it } from 'vitest';
import { dynamo } from '#shared/platform/dynamodb/client.ts';
import { ses } from '#shared/sending/transport.ts';
import { sqs } from '#shared/sending/retry-queue.ts';
import { request } from '../support/api.ts';
import { uniqueAddress } from '../sending/support.ts';
import { accountWithMember, requestCode } from './support.ts';

/** What of an SDK client the probe uses: its middleware stack, whatever the service's types. */
type Client = {
  middlewareStack: {
    add(middleware: (next: (args: any) => Promise<any>, context: { commandName?: string }) => (args: any) => Promise<any>, options: object): void;
    remove(name: string): boolean;
  };
};

/** Every call the three clients make while `fn` runs: service, operation, and which kind of item (the address and ids blanked). */
async function callsDuring(fn: () => Promise<unknown>, addresses: string[]): Promise<string[]> {
  const calls: string[] = [];
  const blank = (text: string) => addresses.reduce((blanked, address) => blanked.split(address).join('<address>'), text).replace(/_[0-9A-Za-z]{20}/g, '_<id>');
  const clients = [
    ['dynamodb', dynamo],
    ['ses', ses],
    ['sqs', sqs],
  ] as unknown as [string, Client][];
  for (const [service, client] of clients) {
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const input = args.input as { Key?: { pk?: unknown }; TableName?: string; MessageBody?: string };
        const item = typeof input.Key?.pk === 'string' ? ` ${blank(input.Key.pk)}` : '';
        const body = input.MessageBody === undefined ? '' : ` ${input.MessageBody.length > 0 ? 'a body' : 'no body'}`;
        calls.push(`${service} ${context.commandName}${item}${body}`);
        return next(args);
      },
      { step: 'initialize', name: `enumerationProbe-${service}` },
    );
  }
  try {
    await fn();
  } finally {
    for (const [service, client] of clients) client.middlewareStack.remove(`enumerationProbe-${service}`);
  }
  return calls.sort();
}

describe("a member's address and a stranger's", () => {
  it('get the same answer to POST /api/session/code from the same DynamoDB, SES and SQS calls', async () => {
    const { email: member } = await accountWithMember();
    const stranger = uniqueAddress('stranger');

    let forMember: Awaited<ReturnType<typeof requestCode>> | undefined;
    let forStranger: typeof forMember;
    const memberCalls = await callsDuring(async () => {
      forMember = await requestCode(member);
    }, [member]);
    const strangerCalls = await callsDuring(async () => {
      forStranger = await requestCode(stranger);
    }, [stranger]);

    expect(forStranger!.body).toEqual(forMember!.body);
    expect(strangerCalls).toEqual(memberCalls);
    // Not vacuous: the address's accounts are looked up, its first code written (a window opened after a refused count), a
    // message queued, and nothing handed to SES.
    expect(memberCalls).toEqual([
      'dynamodb QueryCommand',
      'dynamodb UpdateItemCommand SIGNIN#<address>',
      'dynamodb UpdateItemCommand SIGNIN#<address>',
      'sqs SendMessageCommand a body',
    ]);
  });

  it('get the same answer to a wrong code from the same calls, with or without a code to compare', async () => {
    const { email: member } = await accountWithMember();
    const [stranger, unasked] = [uniqueAddress('stranger'), uniqueAddress('unasked')];
    await requestCode(member);
    await requestCode(stranger);

    const answers: Record<string, unknown> = {};
    const tryWrong = (email: string) => async () => {
      const response = await request('POST', '/api/session', { body: { email, code: '000000' } });
      answers[email] = [response.status, response.body];
    };
    const memberCalls = await callsDuring(tryWrong(member), [member]);
    const strangerCalls = await callsDuring(tryWrong(stranger), [stranger]);
    const unaskedCalls = await callsDuring(tryWrong(unasked), [unasked]);

    expect(answers[stranger]).toEqual(answers[member]);
    expect(answers[unasked]).toEqual(answers[member]);
    expect(strangerCalls).toEqual(memberCalls);
    expect(unaskedCalls).toEqual(memberCalls);
  });
});
