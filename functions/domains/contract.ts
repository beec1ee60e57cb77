import { ADMINS, defineArea, resource } from '#shared/platform/http/contract.ts';
import { dataReply } from '#shared/platform/schema/replies.ts';
import { createDomainBody, domainListItemSchema, domainSchema, listDomainsQuery } from '#shared/domains/schema.ts';

const domain = resource('/api/domains', 'domain', 'DOMAIN_NOT_FOUND', { schema: domainSchema, writeErrors: ['CONFLICT'], access: ADMINS });

export const domains = defineArea('domains', {
  create: domain.create({
    // DeleteItem and DeleteEmailIdentity: a refused addition hands its hold on the SES identity back, deleting one it alone made.
    table: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
    ses: ['CreateEmailIdentity', 'GetEmailIdentity', 'DeleteEmailIdentity'],
    body: createDomainBody,
    errors: ['DOMAIN_EXISTS', 'DOMAIN_LIMIT_REACHED'],
    summary: 'Add a sending domain; answers the DNS records to publish',
    description:
      "The domain is verified for this account once SES sees its DKIM records and the account's own ownership TXT record is published; only then may `from` use it. An account has at most 50 domains (409 `DOMAIN_LIMIT_REACHED` beyond).",
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
    // A check that finds it verified writes the state with `domain.verified` in one transaction (UpdateItem, PutItem).
    table: ['GetItem', 'UpdateItem', 'PutItem'],
    ses: ['GetEmailIdentity'],
    summary: 'Get a sending domain with its records and verification status',
    description: 'Checks the verification again when the domain is still pending, so polling this shows when it becomes verified.',
  }),
  verify: {
    method: 'POST',
    path: '/api/domains/{id}/verify',
    ...ADMINS,
    // The domain, its new state, and `domain.verified` in the same transaction when it becomes verified.
    table: ['GetItem', 'UpdateItem', 'PutItem'],
    ses: ['GetEmailIdentity'],
    params: { id: 'domain' },
    request: {},
    responses: { 200: dataReply(domainSchema) },
    errors: ['DOMAIN_NOT_FOUND'],
    summary: 'Check the verification of a sending domain now',
    description:
      "Asks SES about the domain's DKIM records and looks up the account's ownership TXT record now, records what they say, and answers the domain. Checks a verified domain again too: one whose records were removed goes back to `pending` (or `failed`) and cannot be sent from.",
  },
  delete: domain.delete({
    // The domain, its id pointer and its place in the count, with `domain.deleted` (PutItem), in one transaction.
    table: ['GetItem', 'DeleteItem', 'UpdateItem', 'PutItem'],
    ses: ['DeleteEmailIdentity'],
    summary: 'Delete a sending domain',
    description:
      'Sends from the domain are refused from then on (403 `SENDER_NOT_VERIFIED`), and its place under the limit of 50 is free again. The SES identity is deleted once no account has the domain any more.',
  }),
});
