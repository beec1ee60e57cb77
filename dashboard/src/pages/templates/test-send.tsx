/**
 * "Send a test to yourself": the saved template, with the sample values, to
 * the signed-in person's own address through POST /api/email/send, which a
 * session may call like a key. The From address must be at a verified domain
 * of the account; a member cannot list domains, so it is typed.
 */
import { useState } from 'react';
import { api, call } from '../../api/client.ts';
import { useSession } from '../../session.ts';
import { ApiForm, FormError, SubmitButton, TextInput } from '../../ui/fields.tsx';
import { useFormSubmit } from '../../ui/use-form-submit.ts';

export function TestSend(props: { samples: Record<string, string>; save: () => Promise<string | undefined> }) {
  const session = useSession();
  const me = session.data?.member.email;
  const [from, setFrom] = useState('');
  const [sentTo, setSentTo] = useState<string>();
  const form = useFormSubmit({
    fields: ['from', 'recipients'],
    send: async ({ from: sender }: { from: string }) => {
      setSentTo(undefined);
      // What is on screen is what is tested: unsaved changes are saved first.
      const templateId = await props.save();
      if (templateId === undefined || me === undefined) return undefined;
      await call(api.POST('/api/email/send', { body: { from: sender, recipients: [me], templateId, variables: props.samples } }));
      return me;
    },
    onDone: (to) => setSentTo(to),
  });
  return (
    <ApiForm className="form form-inline" label="Send a test to yourself" errors={form.fieldErrors} onSubmit={() => form.submit({ from })}>
      <TextInput
        label="From"
        name="from"
        value={from}
        onChange={setFrom}
        placeholder="hello@your-domain.com"
        description={`An address at a verified domain of this account. The test goes to ${me ?? 'you'}, with the sample values.`}
      />
      <SubmitButton pending={form.pending}>Send a test to yourself</SubmitButton>
      <FormError error={form.formError} />
      {sentTo ? (
        <p className="notice" role="status">
          Sent to {sentTo}.
        </p>
      ) : null}
    </ApiForm>
  );
}
