import { publicEndpoint } from '#shared/platform/http/endpoint.ts';
import { ok } from '#shared/platform/http/reply.ts';
import { getPublicForm } from '#shared/forms/service.ts';
import { forms } from './contract.ts';

export const handler = publicEndpoint(forms.getPublic, async ({ params, method }) => ok({ data: await getPublicForm(params.slug!, method !== 'HEAD') }));
