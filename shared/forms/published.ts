/**
 * What the public form pages need without submitting: finding a published
 * form from its path, and the honeypot field. Apart from form-submissions.ts,
 * which sends notification and confirmation mail, so that the hosted page
 * does not bundle the mail transport.
 */
import { findFormRoute, getForm, type FormRecord, type FormRoute } from './store.ts';
import { notFound } from '#shared/platform/errors.ts';
import { isId } from '#shared/platform/ids.ts';
import { SLUG } from './schema.ts';

/** The hidden field of the hosted page that people leave empty and form-filling bots do not. */
export const HONEYPOT_FIELD = '_hp';

/**
 * The form a public path names, published, with its account; FORM_NOT_FOUND
 * for anything else, unpublished forms included. `beside`, given the ids the
 * route names, runs beside the form's read rather than after it; its outcome
 * comes back unawaited, for the caller to await where it needs it.
 */
export async function findPublishedForm<T = undefined>(
  formRef: string,
  beside: (route: FormRoute) => Promise<T> = async () => undefined as T,
): Promise<{ accountId: string; form: FormRecord; beside: Promise<T> }> {
  const route = SLUG.test(formRef) || isId('frm', formRef) ? await findFormRoute(formRef) : undefined;
  const besideWork = route ? beside(route) : undefined;
  // Read by the caller, or dropped with the form when there is none: never an unhandled rejection.
  besideWork?.catch(() => undefined);
  const stored = route ? await getForm(route.accountId, route.formId) : undefined;
  if (!route || !besideWork || !stored?.form.published) throw notFound.form();
  return { accountId: route.accountId, form: stored.form, beside: besideWork };
}
