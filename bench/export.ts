/**
 * Exporting an audience of 100,000 contacts to CSV, the export function
 * itself (shared/contacts/export.ts) run in the bench's process without the
 * request's 28 s limit: its time, the process's CPU in it (what a Lambda at
 * 512 MB, about 0.29 of a vCPU, would stretch), its DynamoDB round trips
 * (pages of one Query of the audience's partition) and the file behind the
 * link. The API exports at most EXPORT_MAX_CONTACTS in one request; this says
 * what a queued export of 100,000 will cost (docs/api.md, "Exporting an audience").
 */
import { exportAudience } from '#shared/contacts/export.ts';
import type { DynamoMeter } from './dynamo-meter.ts';
import type { BenchAccount } from './fixtures.ts';
import type { Progress, RequestCost } from './metered.ts';
import { seedContacts } from './scale.ts';
import { expectCall } from './stack.ts';

export const EXPORT_CONTACTS = 100_000;

export interface ExportCost extends RequestCost {
  contacts: number;
  /** CPU of the bench's process during the export, milliseconds. */
  cpuMs: number;
  /** Bytes of the CSV the link serves. */
  bytes: number;
}

export async function measureExport(api: string, meter: DynamoMeter, account: BenchAccount, onProgress: Progress): Promise<ExportCost> {
  const key = account.liveKeys[0]!;
  const audienceId = (await expectCall(api, 201, 'POST', '/api/audiences', { key, body: { name: 'Export' } })).data.id as string;
  const started = performance.now();
  await seedContacts(account.accountId, audienceId, EXPORT_CONTACTS, new Date(), (index) => (index % 10 === 0 ? 'unsubscribed' : 'subscribed'));
  onProgress(`export: loaded ${EXPORT_CONTACTS.toLocaleString('en-US')} contacts in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  meter.reset();
  const cpu = process.cpuUsage();
  const began = performance.now();
  const exported = await exportAudience(account.accountId, audienceId, new Date(), Number.POSITIVE_INFINITY);
  const ms = performance.now() - began;
  const used = process.cpuUsage(cpu);
  const { roundTrips, depth, readUnits, writeUnits } = meter.usage();
  const csv = await (await fetch(exported.url)).text();
  const rows = csv.split('\r\n').length - 2;
  if (exported.rows !== EXPORT_CONTACTS || rows !== EXPORT_CONTACTS)
    throw new Error(`the export has ${exported.rows} rows and its file ${rows}, not ${EXPORT_CONTACTS}`);
  return { contacts: EXPORT_CONTACTS, roundTrips, depth, readUnits, writeUnits, ms, cpuMs: (used.user + used.system) / 1000, bytes: Buffer.byteLength(csv) };
}
