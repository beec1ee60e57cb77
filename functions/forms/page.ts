import { publicEndpoint } from '#shared/http/endpoint.ts';
import { hostedForm } from '#shared/pages/forms.ts';
import { forms } from './contract.ts';

export const handler = publicEndpoint(forms.page, ({ params, method }) => hostedForm(params.slug!, method !== 'HEAD'));
