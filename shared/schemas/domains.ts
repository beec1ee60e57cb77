import * as v from 'valibot';
import { isDomainName } from '#shared/domain/domain-verification.ts';
import { paginationQuery, strictObject } from './common.ts';

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
