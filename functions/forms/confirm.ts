import { publicEndpoint } from '#shared/http/endpoint.ts';
import { confirmQuery } from '#shared/schemas/forms.ts';
import { confirmationPage } from '#shared/pages/forms.ts';

export const handler = publicEndpoint('forms/confirm', { query: confirmQuery }, ({ params, query, now }) =>
  confirmationPage(params.token!, query.audienceId, now));
