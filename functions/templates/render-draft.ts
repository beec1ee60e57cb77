import { endpoint } from '#shared/accounts/endpoint.ts';
import { ok } from '#shared/platform/http/reply.ts';
import { previewDraft } from '#shared/templates/service.ts';
import { templates } from './contract.ts';

export const handler = endpoint(templates.renderDraft, async ({ body, now }) => ok({ ...(await previewDraft(body, now)) }));
