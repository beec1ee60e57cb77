/**
 * The segment count (POST /api/audiences/:id/segment-count) of a 100,000-contact
 * audience under `npm start`, run by hand: `node --import tsx
 * bench/segment-count.ts [contacts]`. Starts bin/start.ts in memory on free
 * ports, seeds the audience as bench/scale.ts does (one contact in ten tagged
 * `a`), and reports the median wall time of five counts each: without a
 * segment (the counters), with the tag, and with a field nothing matches.
 * Figures go to docs/broadcasts.md by hand: a measurement, not a budget.
 */
import { cpus, loadavg } from 'node:os';
import { startLocalAudience } from './local-audience.ts';

const contacts = Number(process.argv[2] ?? 100_000);
const say = (message: string) => process.stderr.write(`segment count: ${message}\n`);

const local = await startLocalAudience('Segment count');
const { api, key, account, audienceId } = local;
try {
  const { seedContacts } = await import('./scale.ts');
  const { expectCall } = await import('./stack.ts');
  const started = performance.now();
  await seedContacts(account.accountId, audienceId, contacts, new Date(), undefined, (index) => (index % 10 === 0 ? ['a'] : []));
  say(`seeded ${contacts} contacts in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  /** The median of five calls' wall time, ms, and the last answer. */
  const timed = async (segment: unknown) => {
    const times: number[] = [];
    let answer: unknown;
    for (let round = 0; round < 5; round++) {
      const at = performance.now();
      answer = (await expectCall(api, 200, 'POST', `/api/audiences/${audienceId}/segment-count`, { key, body: segment === undefined ? {} : { segment } })).data;
      times.push(performance.now() - at);
    }
    return { medianMs: Math.round(times.sort((a, b) => a - b)[2]!), answer };
  };
  console.log(
    JSON.stringify(
      {
        measuredAt: new Date().toISOString(),
        machine: `${cpus().length} × ${cpus()[0]?.model.trim()}, load average ${loadavg()[0]!.toFixed(1)}`,
        contacts,
        wholeAudience: await timed(undefined),
        oneTagInTen: await timed({ tags: ['a'] }),
        noMatch: await timed({ customFields: { plan: 'none' } }),
      },
      null,
      2,
    ),
  );
} finally {
  await local.stop();
}
