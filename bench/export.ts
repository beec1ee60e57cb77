/**
 * Exporting an audience of 100,000 contacts to CSV the way a client does:
 * POST /api/audiences/:id/exports through the bench's API server answers 202
 * `queued`, the export worker (the deployed handler, under the local queue
 * poller, in the bench's process) takes the job from the local SQS queue,
 * and GET polls the record until `ready`. Measured: the wall time from the
 * POST to `ready`, the bench process's CPU in it (the worker's: what a
 * Lambda at EXPORT_WORKER_MEMORY_MB would stretch), its DynamoDB round trips
 * (the parallel Queries of the audience's partition) and the file behind the
 * link (docs/api.md, "Exporting an audience").
 */
import { EXPORT_READ_SEGMENTS } from '#shared/contacts/export-policy.ts';
import type { DynamoMeter } from './dynamo-meter.ts';
import type { BenchAccount } from './fixtures.ts';
import type { Progress, RequestCost } from './metered.ts';
import { seedContacts } from './scale.ts';
import { call, expectCall } from './stack.ts';

export const EXPORT_CONTACTS = 100_000;

export interface ExportCost extends RequestCost {
  contacts: number;
  /** CPU of the bench's process (the worker) during the export, milliseconds. */
  cpuMs: number;
  /** Bytes of the CSV the link serves. */
  bytes: number;
  /** Parallel Queries the worker read the audience with. */
  segments: number;
  /** Polls answered other than 200 while the export ran. */
  failedPolls: number;
}

export async function measureExport(api: string, meter: DynamoMeter, account: BenchAccount, onProgress: Progress): Promise<ExportCost> {
  const key = account.liveKeys[0]!;
  const audienceId = (await expectCall(api, 201, 'POST', '/api/audiences', { key, body: { name: 'Export' } })).data.id as string;
  const started = performance.now();
  await seedContacts(account.accountId, audienceId, EXPORT_CONTACTS, new Date(), (index) => (index % 10 === 0 ? 'unsubscribed' : 'subscribed'));
  onProgress(`export: loaded ${EXPORT_CONTACTS.toLocaleString('en-US')} contacts in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const { startExportWorker } = await import('#dev/local/export-worker.ts');
  const worker = await startExportWorker();
  try {
    meter.reset();
    const cpu = process.cpuUsage();
    const began = performance.now();
    const queued = (await expectCall(api, 202, 'POST', `/api/audiences/${audienceId}/exports`, { key })).data;
    let exported = queued;
    let failedPolls = 0;
    while (exported.status === 'queued' || exported.status === 'running') {
      await new Promise((resolve) => setTimeout(resolve, 250));
      // A poll DynamoDB Local answers too late (its JVM starved of CPU while the worker's Queries run) is a 500: asked again, as the dashboard does.
      const poll = await call(api, 'GET', `/api/audiences/${audienceId}/exports/${queued.id}`, { key });
      if (poll.status === 200) exported = poll.body.data;
      else failedPolls++;
    }
    const ms = performance.now() - began;
    const used = process.cpuUsage(cpu);
    const { roundTrips, depth, readUnits, writeUnits } = meter.usage();
    if (exported.status !== 'ready') throw new Error(`the export ended ${exported.status}: ${exported.reason}`);
    const csv = await (await fetch(exported.url)).text();
    const rows = csv.split('\r\n').length - 2;
    if (exported.rows !== EXPORT_CONTACTS || rows !== EXPORT_CONTACTS)
      throw new Error(`the export has ${exported.rows} rows and its file ${rows}, not ${EXPORT_CONTACTS}`);
    return {
      contacts: EXPORT_CONTACTS,
      roundTrips,
      depth,
      readUnits,
      writeUnits,
      ms,
      cpuMs: (used.user + used.system) / 1000,
      bytes: Buffer.byteLength(csv),
      segments: EXPORT_READ_SEGMENTS,
      failedPolls,
    };
  } finally {
    await worker.stop();
  }
}
