/**
 * A contact's page: what it holds, and changing its status, tags and custom
 * fields (sent as the API's update: tags replace all tags, custom fields merge
 * key by key, a removed key is sent as null), or deleting it.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { updateContactBody } from '#shared/contacts/schema.ts';
import { api, call, type paths } from '../../api/client.ts';
import { navigate } from '../../router.ts';
import type { PageProps } from '../../routes.tsx';
import { AppLink } from '../../ui/app-link.tsx';
import { ConfirmAction } from '../../ui/confirm.tsx';
import { Action, ApiForm, FormError, SubmitButton, TextInput, useFieldError } from '../../ui/fields.tsx';
import { PageHeader, QueryView, Section, Time } from '../../ui/page.tsx';
import { SelectField } from '../../ui/select.tsx';
import { useFormSubmit } from '../../ui/use-form-submit.ts';
import { CONTACT_STATUSES, ContactStatusBadge, type ContactStatus } from './contact-status.tsx';

type Contact = paths['/api/contacts/{id}']['get']['responses']['200']['content']['application/json']['data'];
type FieldValue = Contact['customFields'][string];

interface FieldRow {
  /** Stable across edits, for React's keys and the inputs' names. */
  row: number;
  key: string;
  value: string;
}

/** The edited text as the type the field had, so that saving an untouched number or boolean does not turn it into a string. */
function typedValue(text: string, before: FieldValue | undefined): FieldValue {
  if (typeof before === 'number' && text.trim() !== '' && Number.isFinite(Number(text))) return Number(text);
  if (typeof before === 'boolean' && (text === 'true' || text === 'false')) return text === 'true';
  return text;
}

function CustomFieldsError() {
  const { message } = useFieldError('customFields');
  return message ? (
    <p className="field-error" role="alert">
      {message}
    </p>
  ) : null;
}

function EditContact({ contact }: { contact: Contact }) {
  const [status, setStatus] = useState<ContactStatus>(contact.status);
  const [tags, setTags] = useState(contact.tags.join(', '));
  const [rows, setRows] = useState<FieldRow[]>(() => Object.entries(contact.customFields).map(([key, value], row) => ({ row, key, value: String(value) })));
  const [nextRow, setNextRow] = useState(rows.length);
  const [saved, setSaved] = useState(false);
  const form = useFormSubmit({
    schema: updateContactBody,
    fields: ['status', 'tags', 'customFields'],
    send: (body: { status: ContactStatus; tags: string[]; customFields: Record<string, FieldValue | null> }) =>
      call(api.PATCH('/api/contacts/{id}', { params: { path: { id: contact.id } }, body })),
    invalidates: [['contacts'], ['audiences', contact.audienceId, 'stats']],
    onDone: () => setSaved(true),
  });
  const setRow = (row: number, change: Partial<FieldRow>) => setRows(rows.map((one) => (one.row === row ? { ...one, ...change } : one)));
  return (
    <ApiForm
      label="Change the contact"
      errors={form.fieldErrors}
      onSubmit={() => {
        setSaved(false);
        const kept = rows.filter((one) => one.key.trim() !== '');
        const customFields: Record<string, FieldValue | null> = Object.fromEntries(Object.keys(contact.customFields).map((key) => [key, null]));
        for (const one of kept) customFields[one.key.trim()] = typedValue(one.value, contact.customFields[one.key.trim()]);
        form.submit({ status, tags: tags.split(',').flatMap((tag) => (tag.trim() ? [tag.trim()] : [])), customFields });
      }}
    >
      <SelectField label="Status" name="status" value={status} onChange={setStatus} options={CONTACT_STATUSES.map((one) => ({ value: one, label: one }))} />
      <TextInput label="Tags" name="tags" value={tags} onChange={setTags} description="Separated by commas; these replace the contact's tags." />
      <fieldset className="fieldset">
        <legend>Custom fields</legend>
        {rows.length === 0 ? <p className="muted">None.</p> : null}
        {rows.map((one, index) => (
          <div className="field-row" key={one.row}>
            <TextInput label={`Field ${index + 1} name`} name={`customKey${one.row}`} value={one.key} onChange={(key) => setRow(one.row, { key })} />
            <TextInput label={`Field ${index + 1} value`} name={`customValue${one.row}`} value={one.value} onChange={(value) => setRow(one.row, { value })} />
            <Action variant="quiet" aria-label={`Remove field ${index + 1}`} onPress={() => setRows(rows.filter((other) => other.row !== one.row))}>
              Remove
            </Action>
          </div>
        ))}
        <Action
          onPress={() => {
            setRows([...rows, { row: nextRow, key: '', value: '' }]);
            setNextRow(nextRow + 1);
          }}
        >
          Add a field
        </Action>
        <CustomFieldsError />
      </fieldset>
      <SubmitButton pending={form.pending}>Save changes</SubmitButton>
      {saved ? (
        <p className="muted" role="status">
          Saved.
        </p>
      ) : null}
      <FormError error={form.formError} />
    </ApiForm>
  );
}

export default function ContactPage({ params }: PageProps) {
  const audienceId = params.id!;
  const id = params.contactId!;
  const queryClient = useQueryClient();
  const contact = useQuery({ queryKey: ['contacts', 'one', id], queryFn: () => call(api.GET('/api/contacts/{id}', { params: { path: { id } } })) });
  const back = `/audiences/${encodeURIComponent(audienceId)}`;
  return (
    <>
      <PageHeader title={contact.data?.data.email ?? 'Contact'}>
        <AppLink href={back} className="button button-quiet">
          The audience
        </AppLink>
      </PageHeader>
      <QueryView query={contact} label="The contact">
        {({ data }) => (
          <>
            <dl className="facts">
              <div>
                <dt>Status</dt>
                <dd>
                  <ContactStatusBadge status={data.status} />
                </dd>
              </div>
              <div>
                <dt>Name</dt>
                <dd>{[data.firstName, data.lastName].filter(Boolean).join(' ') || <span className="muted">none</span>}</dd>
              </div>
              <div>
                <dt>Phone</dt>
                <dd>{data.phone ?? <span className="muted">none</span>}</dd>
              </div>
              <div>
                <dt>Added</dt>
                <dd>
                  <Time value={data.createdAt} />
                </dd>
              </div>
              <div>
                <dt>Last activity</dt>
                <dd>
                  <Time value={data.lastActivityAt} />
                </dd>
              </div>
            </dl>
            <Section title="Change">
              <EditContact key={data.id} contact={data} />
            </Section>
            <div className="page-actions">
              <ConfirmAction
                label="Delete contact"
                title={`Delete ${data.email}?`}
                confirmLabel="Delete contact"
                onConfirm={async () => {
                  await call(api.DELETE('/api/contacts/{id}', { params: { path: { id } } }));
                  await queryClient.invalidateQueries({ queryKey: ['contacts'] });
                  await queryClient.invalidateQueries({ queryKey: ['audiences'] });
                  navigate(back);
                }}
              >
                <p>This cannot be undone. To stop mail to this address but keep its history, set its status to unsubscribed instead.</p>
              </ConfirmAction>
            </div>
          </>
        )}
      </QueryView>
    </>
  );
}
