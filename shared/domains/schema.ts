import * as v from 'valibot';
import { paginationQuery, strictObject } from '#shared/platform/schema/common.ts';
import { timestamp } from '#shared/platform/schema/replies.ts';

/** `example.com`, `mail.example.co.uk`: lower-case labels of letters, digits and inner hyphens, and a dot. */
export function isDomainName(value: string): boolean {
  return value.length <= 253 && /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/.test(value);
}

/** Compared and stored lower-cased, as DNS names are case-insensitive. */
export const createDomainBody = strictObject({
  domain: v.pipe(v.string(), v.trim(), v.nonEmpty(), v.toLowerCase(), v.check(isDomainName, 'must be a domain name such as example.com or mail.example.com')),
});
export type CreateDomainInput = v.InferOutput<typeof createDomainBody>;

export const listDomainsQuery = v.object(paginationQuery(20, 100));

// Replies.

const dnsRecordSchema = v.strictObject({
  purpose: v.picklist(['dkim', 'ownership', 'spf', 'dmarc']),
  type: v.picklist(['CNAME', 'TXT']),
  name: v.string(),
  value: v.string(),
  required: v.boolean(),
});

const domainFields = {
  id: v.string(),
  domain: v.string(),
  verified: v.boolean(),
  status: v.picklist(['pending', 'verified', 'failed']),
  createdAt: timestamp,
  verifiedAt: v.nullable(timestamp),
};

export const domainSchema = v.strictObject({ ...domainFields, records: v.array(dnsRecordSchema) });
export const domainListItemSchema = v.strictObject(domainFields);
