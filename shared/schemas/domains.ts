import * as v from 'valibot';
import { paginationQuery, strictObject } from './common.ts';

/** `example.com`, `mail.example.co.uk`: lower-case labels of letters, digits and inner hyphens, and a dot. */
export function isDomainName(value: string): boolean {
  return value.length <= 253 && /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/.test(value);
}

/** Compared and stored lower-cased, as DNS names are case-insensitive. */
export const createDomainBody = strictObject({
  domain: v.pipe(
    v.string(),
    v.trim(),
    v.nonEmpty(),
    v.toLowerCase(),
    v.check(isDomainName, 'must be a domain name such as example.com or mail.example.com'),
  ),
});
export type CreateDomainInput = v.InferOutput<typeof createDomainBody>;

export const listDomainsQuery = v.object(paginationQuery(20, 100));
