/** Renaming an audience (name, description) and deleting it; its contacts stay after a deletion, as the API keeps them. */
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { updateAudienceBody } from '#shared/audiences/schema.ts';
import { api, call } from '../../api/client.ts';
import { navigate } from '../../router.ts';
import { ConfirmAction } from '../../ui/confirm.tsx';
import { ApiForm, FormError, SubmitButton, TextInput } from '../../ui/fields.tsx';
import { useFormSubmit } from '../../ui/use-form-submit.ts';

export function RenameAudience({ id, name: savedName, description: savedDescription }: { id: string; name: string; description: string | null }) {
  const [name, setName] = useState(savedName);
  const [description, setDescription] = useState(savedDescription ?? '');
  const [saved, setSaved] = useState(false);
  const form = useFormSubmit({
    schema: updateAudienceBody,
    fields: ['name', 'description'],
    send: (body: { name: string; description: string | null }) => call(api.PATCH('/api/audiences/{id}', { params: { path: { id } }, body })),
    invalidates: [['audiences']],
    onDone: () => setSaved(true),
  });
  return (
    <ApiForm
      label="Rename the audience"
      errors={form.fieldErrors}
      onSubmit={() => {
        setSaved(false);
        form.submit({ name, description: description.trim() ? description : null });
      }}
    >
      <TextInput label="Name" name="name" value={name} onChange={setName} isRequired />
      <TextInput label="Description" name="description" value={description} onChange={setDescription} description="Leave empty to remove it." />
      <SubmitButton pending={form.pending}>Save</SubmitButton>
      {saved ? (
        <p className="muted" role="status">
          Saved.
        </p>
      ) : null}
      <FormError error={form.formError} />
    </ApiForm>
  );
}

export function DeleteAudience({ id, name }: { id: string; name: string }) {
  const queryClient = useQueryClient();
  return (
    <ConfirmAction
      label="Delete audience"
      title={`Delete ${name}?`}
      confirmLabel="Delete audience"
      onConfirm={async () => {
        await call(api.DELETE('/api/audiences/{id}', { params: { path: { id } } }));
        await queryClient.invalidateQueries({ queryKey: ['audiences'] });
        navigate('/audiences');
      }}
    >
      <p>
        The audience goes away; its contacts are kept, with their statuses, and stay reachable through the API by this audience's id. Broadcasts can no longer
        be sent to it.
      </p>
    </ConfirmAction>
  );
}
