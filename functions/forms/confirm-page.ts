import { publicEndpoint } from '#shared/http/endpoint.ts';
import { confirmationRequestPage } from '#shared/pages/forms.ts';
import { forms } from './contract.ts';

export const handler = publicEndpoint(forms.confirmPage, ({ params }) => confirmationRequestPage(params.token!));
