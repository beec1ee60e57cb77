/** Adding a webhook endpoint: its URL, the events it receives, a note; the signing secret is shown once, here. */
import { useState } from 'react';
import { EVENT_TYPES } from '#shared/events/types.ts';
import { createWebhookBody } from '#shared/webhooks/schema.ts';
import { api, call } from '../../api/client.ts';
import { CheckboxesField } from '../../ui/checkboxes.tsx';
import { ApiForm, Choice, FormError, SubmitButton, TextInput } from '../../ui/fields.tsx';
import { SecretOnce } from '../../ui/secret-once.tsx';
import { useFormSubmit } from '../../ui/use-form-submit.ts';

const EVENT_OPTIONS = EVENT_TYPES.map((type) => ({ value: type, label: type }));

export function CreateWebhook() {
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [scope, setScope] = useState<'all' | 'some'>('all');
  const [events, setEvents] = useState<string[]>([]);
  const form = useFormSubmit({
    schema: createWebhookBody,
    fields: ['url', 'events', 'description'],
    send: (body: { url: string; events: string[]; description?: string }) => call(api.POST('/api/webhooks', { body: body as never })),
    invalidates: [['webhooks']],
  });
  if (form.result) {
    return (
      <SecretOnce
        label="Signing secret"
        secret={form.result.data.secret}
        onDone={() => {
          setUrl('');
          setDescription('');
          setEvents([]);
          form.reset();
        }}
      />
    );
  }
  return (
    <ApiForm
      label="Add a webhook endpoint"
      errors={form.fieldErrors}
      onSubmit={() => form.submit({ url, events: scope === 'all' ? ['*'] : events, ...(description ? { description } : {}) })}
    >
      <TextInput
        label="Endpoint URL"
        name="url"
        type="url"
        value={url}
        onChange={setUrl}
        isRequired
        placeholder="https://example.com/webhooks/postlane"
        description="Postlane POSTs each event here as JSON, signed with the secret shown after you add it."
      />
      <TextInput label="Description" name="description" value={description} onChange={setDescription} />
      <Choice
        label="Events"
        name="scope"
        value={scope}
        onChange={setScope}
        options={[
          { value: 'all', label: 'All events', description: 'including types added later' },
          { value: 'some', label: 'Only the events I choose' },
        ]}
      />
      {scope === 'some' ? <CheckboxesField label="Event types" name="events" value={events} onChange={setEvents} options={EVENT_OPTIONS} /> : null}
      <SubmitButton pending={form.pending}>Add endpoint</SubmitButton>
      <FormError error={form.formError} />
    </ApiForm>
  );
}
