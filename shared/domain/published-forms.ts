/**
 * What the public form pages need without submitting: finding a published
 * form from its path, and the honeypot field. Apart from form-submissions.ts,
 * which sends notification and confirmation mail, so that the hosted page
 * does not bundle the mail transport.
 */
import { findFormRoute, getForm, type FormRecord } from '#shared/data/forms.ts';
import { notFound } from '#shared/errors.ts';
import { isId } from '#shared/ids.ts';
import { SLUG } from '#shared/schemas/forms.ts';

/** The hidden field of the hosted page that people leave empty and form-filling bots do not. */
export const HONEYPOT_FIELD = '_hp';

/** The form a public path names, published, with its account; FORM_NOT_FOUND for anything else, unpublished forms included. */
export async function findPublishedForm(formRef: string): Promise<{ accountId: string; form: FormRecord }> {
  const route = SLUG.test(formRef) || isId('frm', formRef) ? await findFormRoute(formRef) : undefined;
  const stored = route ? await getForm(route.accountId, route.formId) : undefined;
  if (!route || !stored?.form.published) throw notFound.form();
  return { accountId: route.accountId, form: stored.form };
}
