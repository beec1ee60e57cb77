import { publicEndpoint } from '#shared/http/endpoint.ts';
import { ok } from '#shared/http/reply.ts';
import { getPublicForm } from '#shared/domain/forms.ts';
import { forms } from './contract.ts';

export const handler = publicEndpoint(forms.getPublic, async ({ params, method }) => ok({ data: await getPublicForm(params.slug!, method !== 'HEAD') }));
