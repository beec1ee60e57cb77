/**
 * Where a saved form lives: the hosted page's address and an embed snippet
 * (the hosted page in an iframe, which its CSP allows on any site), each with
 * a copy button. Sites that render the form themselves call the public view
 * and submit endpoints, which answer the origins of `postlane:corsOrigins`.
 */
import { CopyButton } from '../../ui/copy-button.tsx';
import { Section } from '../../ui/page.tsx';
import type { Form } from './draft.ts';

const escapeAttribute = (text: string) => text.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;');

export function Publish({ form }: { form: Form }) {
  // The API builds it from FORMS_URL or the public base URL, as it does for the list and the mails.
  const url = form.publishedUrl;
  const snippet = `<iframe src="${escapeAttribute(url)}" title="${escapeAttribute(form.title)}" style="width:100%;min-height:640px;border:0" loading="lazy"></iframe>`;
  return (
    <Section title="Publish">
      {form.published ? (
        <div className="form">
          <div className="copy-row">
            <span className="field-label">Hosted page</span>
            <code className="copy-value">{url}</code>
            <CopyButton value={url} label="Copy the hosted page's address" />
          </div>
          <div className="copy-row">
            <span className="field-label">Embed on your site</span>
            <code className="copy-value">{snippet}</code>
            <CopyButton value={snippet} label="Copy the embed snippet" />
          </div>
          <p className="muted">
            The snippet shows the hosted page in a frame; it works on any site. To render the form yourself, read <code>/api/forms/public/{form.slug}</code> and
            post to <code>/api/forms/{form.slug}/submit</code> from a page whose origin is in the deployment's <code>postlane:corsOrigins</code> (see the API
            reference).
          </p>
        </div>
      ) : (
        <p className="muted">Not published: turn on "Published" and save to get the hosted page's address and an embed snippet.</p>
      )}
    </Section>
  );
}
