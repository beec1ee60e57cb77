import { publicEndpoint } from '#shared/platform/http/endpoint.ts';
import { hostedForm } from '#shared/forms/pages.ts';
import { forms } from './contract.ts';

export const handler = publicEndpoint(forms.page, ({ params, method }) => hostedForm(params.slug!, method !== 'HEAD'));
