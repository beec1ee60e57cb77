/**
 * A 100,000-contact broadcast under `npm start` (issue 17 item 4), run by
 * hand: `node --import tsx bench/local-broadcast.ts [contacts]`. Starts
 * bin/start.ts in memory on free ports, seeds the audience into its DynamoDB
 * Local as bench/scale.ts does, creates and sends the broadcast through its
 * HTTP API, waits for `sent`, and reports the wall time, messages per second,
 * the server's resident memory (the SES emulator keeps every message in it)
 * and whether the emulator still answers its store. Figures go to
 * docs/broadcasts.md by hand: this is a measurement, not a budget.
 */
import { readFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { startLocalAudience } from './local-audience.ts';

const contacts = Number(process.argv[2] ?? 100_000);
const say = (message: string) => process.stderr.write(`local broadcast: ${message}\n`);

/** Resident memory of a process, MB (Linux). */
async function residentMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

const local = await startLocalAudience('Local 100k');
const { server, api, key, account, audienceId } = local;
try {
  const { seedContacts } = await import('./scale.ts');
  const { expectCall } = await import('./stack.ts');
  let started = performance.now();
  await seedContacts(account.accountId, audienceId, contacts, new Date());
  say(`seeded ${contacts} contacts in ${((performance.now() - started) / 1000).toFixed(0)} s; server ${(await residentMb(server.pid!)).toFixed(0)} MB`);
  const broadcast = (
    await expectCall(api, 201, 'POST', '/api/broadcasts', {
      key,
      body: { audienceId, from: account.from, subject: 'News for {{firstName}}', content: '<p>Hello {{firstName}}, here is what is new this month.</p>' },
    })
  ).data;
  started = performance.now();
  await expectCall(api, 202, 'POST', `/api/broadcasts/${broadcast.id}/send`, { key, body: {} });
  let current = broadcast;
  let peakMb = 0;
  let lastReport = 0;
  let progressAt = { sent: 0, at: performance.now() };
  while (current.status !== 'sent') {
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    current = (await expectCall(api, 200, 'GET', `/api/broadcasts/${broadcast.id}`, { key })).data;
    peakMb = Math.max(peakMb, await residentMb(server.pid!));
    if (performance.now() - lastReport > 30_000) {
      lastReport = performance.now();
      say(`${current.status}: ${JSON.stringify(current.counts)}, server ${peakMb.toFixed(0)} MB peak`);
    }
    if (!['sending', 'sent'].includes(current.status)) throw new Error(`broadcast ${current.status}`);
    if (current.counts.sent !== progressAt.sent) progressAt = { sent: current.counts.sent, at: performance.now() };
    // A batch whose step went to the dead-letter queue never finishes: report it rather than wait for ever.
    if (performance.now() - progressAt.at > 10 * 60_000) throw new Error(`no progress for 10 minutes: ${JSON.stringify(current.counts)}`);
  }
  const seconds = (performance.now() - started) / 1000;
  let store: string;
  try {
    const response = await fetch(`${process.env.SES_ENDPOINT}/store`);
    const body = (await response.json()) as { emails: unknown[] };
    store = `answered with ${body.emails.length} messages`;
  } catch (error) {
    store = `failed: ${(error as Error).message}`;
  }
  console.log(
    JSON.stringify(
      {
        measuredAt: new Date().toISOString(),
        machine: `${cpus().length} × ${cpus()[0]?.model.trim()}, load average ${loadavg()[0]!.toFixed(1)}`,
        contacts,
        counts: current.counts,
        seconds: Math.round(seconds),
        messagesPerSecond: Number((current.counts.sent / seconds).toFixed(1)),
        serverPeakMb: Math.round(peakMb),
        serverAfterMb: Math.round(await residentMb(server.pid!)),
        sesStore: store,
      },
      null,
      2,
    ),
  );
} finally {
  await local.stop();
}
