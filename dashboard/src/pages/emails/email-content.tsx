/**
 * What an email held when it was handed to SES (GET /api/emails/:id/content):
 * its HTML, its text part and its headers, one tab each.
 *
 * The HTML is the sender's (or whoever filled a template's variables), so it
 * is shown as a document of its own that can do nothing: an `<iframe
 * sandbox="">` (no script, no form, no popup, an origin of its own) whose
 * `srcdoc` starts with a Content-Security-Policy of its own that loads
 * nothing but `data:` images and inline styles. Remote images and tracking
 * pixels are not fetched, so viewing an email never counts as an open. The
 * dashboard's CSP, which the frame inherits, blocks the same and more
 * (dev/local/dashboard.ts). Text and headers are rendered by React as text.
 */
import { useQuery } from '@tanstack/react-query';
import { Tab, TabList, TabPanel, Tabs } from 'react-aria-components/Tabs';
import { api, call } from '../../api/client.ts';
import { ApiError } from '../../api/errors.ts';
import { Empty, QueryView } from '../../ui/page.tsx';

/** Nothing to fetch, nothing to run: `data:` images and inline styles only. */
const FRAME_POLICY = "default-src 'none'; img-src data:; style-src 'unsafe-inline'";

/**
 * The document the frame shows: the policy first, so the parser puts it in
 * the head before anything of the email's (a policy the email brings can
 * only add restrictions).
 */
export function framedHtml(html: string): string {
  return `<!DOCTYPE html><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${FRAME_POLICY}">${html}`;
}

type Content = NonNullable<Awaited<ReturnType<typeof fetchContent>>>['data'];

function fetchContent(id: string) {
  return call(api.GET('/api/emails/{id}/content', { params: { path: { id } } }));
}

function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function MessageHeaders({ content }: { content: Content }) {
  const rows: [string, string][] = [
    ['Subject', content.subject],
    ['From', content.from],
    ['To', content.to.join(', ')],
    ['Cc', content.cc.join(', ')],
    ['Bcc', content.bcc.join(', ')],
    ['Reply-To', content.replyTo.join(', ')],
    ...content.headers.map(({ name, value }): [string, string] => [name, value]),
  ];
  return (
    <dl className="facts">
      {rows
        .filter(([, value]) => value)
        .map(([name, value], index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: a header may come twice; the list is fixed, so its place tells them apart
          <div key={`${name}-${index}`}>
            <dt>{name}</dt>
            <dd className="cell-wrap">{value}</dd>
          </div>
        ))}
    </dl>
  );
}

function Attachments({ attachments }: { attachments: Content['attachments'] }) {
  if (attachments.length === 0) return null;
  return (
    <div className="attachments">
      <h3>Attachments</h3>
      <ul>
        {attachments.map((attachment, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: the same file may be attached twice; the list is fixed, so its place tells them apart
          <li key={`${attachment.filename}-${index}`}>
            <span className="cell-wrap">{attachment.filename}</span>{' '}
            <span className="muted">
              ({attachment.contentType}, {formatSize(attachment.size)})
            </span>
          </li>
        ))}
      </ul>
      <p className="muted">Only their names, types and sizes are kept, not the files.</p>
    </div>
  );
}

function ContentTabs({ content }: { content: Content }) {
  return (
    <>
      <Tabs className="tabs">
        <TabList aria-label="The email as sent" className="tab-list">
          <Tab id="html" className="tab">
            HTML
          </Tab>
          <Tab id="text" className="tab">
            Text
          </Tab>
          <Tab id="headers" className="tab">
            Headers
          </Tab>
        </TabList>
        <TabPanel id="html" className="tab-panel">
          <p className="muted">Shown as sent, with no script run: remote images are not loaded, so viewing it never counts as an open.</p>
          <iframe className="email-frame" title="The email’s HTML" sandbox="" referrerPolicy="no-referrer" srcDoc={framedHtml(content.html)} />
        </TabPanel>
        <TabPanel id="text" className="tab-panel">
          {content.text ? <pre className="email-text">{content.text}</pre> : <Empty>This email has no text part.</Empty>}
        </TabPanel>
        <TabPanel id="headers" className="tab-panel">
          <MessageHeaders content={content} />
        </TabPanel>
      </Tabs>
      <Attachments attachments={content.attachments} />
    </>
  );
}

/** The content's tabs; an email whose content is not kept says so rather than failing. */
export function EmailContent({ id }: { id: string }) {
  const content = useQuery({ queryKey: ['emails', id, 'content'], queryFn: () => fetchContent(id) });
  if (content.error instanceof ApiError && content.error.code === 'EMAIL_CONTENT_NOT_FOUND') {
    return <Empty>The content of this email is not kept: it expired with the retention period, or the message was never sent (a suppressed recipient).</Empty>;
  }
  return (
    <QueryView query={content} label="The content">
      {({ data }) => <ContentTabs content={data} />}
    </QueryView>
  );
}
