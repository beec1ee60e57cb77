import { publicEndpoint } from '#shared/platform/http/endpoint.ts';
import { submissionReply } from '#shared/forms/submission-pages.ts';
import { forms } from './contract.ts';

/** JSON for API clients and the hosted page's script; a page for a browser's plain form post. */
export const handler = publicEndpoint(forms.submit, ({ params, body, headers, sourceIp, now }) =>
  submissionReply({ formRef: params.id!, body, headers, sourceIp, now }),
);
