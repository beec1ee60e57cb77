import { defineArea, KEYED } from '#shared/http/contract.ts';
import { createDomainBody, domainListItemSchema, domainSchema, listDomainsQuery } from '#shared/schemas/domains.ts';
import { dataReply, listReply } from '#shared/schemas/replies.ts';

export const domains = defineArea('domains', {
  create: {
    method: 'POST',
    path: '/api/domains',
    ...KEYED,
    table: ['GetItem', 'PutItem'],
    ses: ['CreateEmailIdentity', 'GetEmailIdentity'],
    request: { body: createDomainBody },
    responses: { 201: dataReply(domainSchema) },
    errors: ['DOMAIN_EXISTS'],
    summary: 'Add a sending domain; answers the DNS records to publish',
    description:
      "The domain is verified for this account once SES sees its DKIM records and the account's own ownership TXT record is published; only then may `from` use it.",
    example: { domain: 'mail.example.com' },
  },
  list: {
    method: 'GET',
    path: '/api/domains',
    ...KEYED,
    table: ['Query', 'BatchGetItem'],
    request: { query: listDomainsQuery },
    responses: { 200: listReply('domains', domainListItemSchema) },
    summary: 'List sending domains',
    description: "One page of the account's domains with their verification status.",
  },
  get: {
    method: 'GET',
    path: '/api/domains/{id}',
    ...KEYED,
    table: ['GetItem', 'UpdateItem'],
    ses: ['GetEmailIdentity'],
    params: { id: 'domain' },
    request: {},
    responses: { 200: dataReply(domainSchema) },
    errors: ['DOMAIN_NOT_FOUND'],
    summary: 'Get a sending domain with its records and verification status',
    description: 'Checks the verification again when the domain is still pending, so polling this shows when it becomes verified.',
  },
});
