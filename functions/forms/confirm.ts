import { publicEndpoint } from '#shared/platform/http/endpoint.ts';
import { confirmationPage } from '#shared/forms/pages.ts';
import { forms } from './contract.ts';

/** No body schema: the signed link alone decides, so the page's button works whatever its form post carries. */
export const handler = publicEndpoint(forms.confirm, ({ params, now }) => confirmationPage(params.token!, now));
