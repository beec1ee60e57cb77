import { publicEndpoint } from '#shared/platform/http/endpoint.ts';
import { confirmationRequestPage } from '#shared/forms/pages.ts';
import { forms } from './contract.ts';

export const handler = publicEndpoint(forms.confirmPage, ({ params }) => confirmationRequestPage(params.token!));
