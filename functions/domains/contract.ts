import { defineArea, resource } from '#shared/http/contract.ts';
import { createDomainBody, domainListItemSchema, domainSchema, listDomainsQuery } from '#shared/schemas/domains.ts';

const domain = resource('/api/domains', 'domain', 'DOMAIN_NOT_FOUND', { schema: domainSchema });

export const domains = defineArea('domains', {
  create: domain.create({
    table: ['GetItem', 'PutItem'],
    ses: ['CreateEmailIdentity', 'GetEmailIdentity'],
    body: createDomainBody,
    errors: ['DOMAIN_EXISTS'],
    summary: 'Add a sending domain; answers the DNS records to publish',
    description:
      "The domain is verified for this account once SES sees its DKIM records and the account's own ownership TXT record is published; only then may `from` use it.",
    example: { domain: 'mail.example.com' },
  }),
  list: domain.list({
    table: ['Query', 'BatchGetItem'],
    query: listDomainsQuery,
    name: 'domains',
    item: domainListItemSchema,
    summary: 'List sending domains',
    description: "One page of the account's domains with their verification status.",
  }),
  get: domain.get({
    table: ['GetItem', 'UpdateItem'],
    ses: ['GetEmailIdentity'],
    summary: 'Get a sending domain with its records and verification status',
    description: 'Checks the verification again when the domain is still pending, so polling this shows when it becomes verified.',
  }),
});
