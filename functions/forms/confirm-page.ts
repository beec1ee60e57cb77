import { publicEndpoint } from '#shared/http/endpoint.ts';
import { confirmationRequestPage } from '#shared/pages/forms.ts';

export const handler = publicEndpoint('forms/confirm-page', {}, ({ params }) => confirmationRequestPage(params.token!));
