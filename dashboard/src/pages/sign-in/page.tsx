/**
 * Sign-in by a code sent by email: the address first, then the code. The API
 * answers the first step the same for any address, so this page says "if it
 * belongs to a member"; it never tells who is one. Once signed in, the
 * address the person came to (the Overview, or the page whose session ended)
 * shows its page.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { requestCodeBody, signInBody } from '#shared/people/schema.ts';
import { api, call } from '../../api/client.ts';
import { startSession } from '../../session.ts';
import { ApiForm, Action, FormError, SubmitButton, TextInput } from '../../ui/fields.tsx';
import { useFormSubmit } from '../../ui/use-form-submit.ts';

function AddressStep({ email, setEmail, onSent }: { email: string; setEmail: (email: string) => void; onSent: () => void }) {
  const form = useFormSubmit({
    schema: requestCodeBody,
    fields: ['email'],
    send: (body: { email: string }) => call(api.POST('/api/session/code', { body })),
    onDone: onSent,
  });
  return (
    <ApiForm label="Sign in" errors={form.fieldErrors} onSubmit={() => form.submit({ email })}>
      <TextInput label="Email address" name="email" type="email" autoComplete="email" value={email} onChange={setEmail} isRequired autoFocus />
      <SubmitButton pending={form.pending}>Email me a sign-in code</SubmitButton>
      <FormError error={form.formError} />
    </ApiForm>
  );
}

function CodeStep({ email, onBack }: { email: string; onBack: () => void }) {
  const queryClient = useQueryClient();
  const [code, setCode] = useState('');
  const [resent, setResent] = useState(false);
  const form = useFormSubmit({
    schema: signInBody,
    fields: ['code', 'email'],
    send: (body: { email: string; code: string }) => call(api.POST('/api/session', { body })),
    onDone: ({ data }) => startSession(queryClient, data),
  });
  const resend = useFormSubmit({
    fields: [],
    send: (body: { email: string }) => call(api.POST('/api/session/code', { body })),
    onDone: () => setResent(true),
  });
  return (
    <>
      <p role="status">
        If <strong>{email}</strong> belongs to a member of an account, a 6-digit code is on its way to it. It is valid for 10 minutes.
      </p>
      <ApiForm label="Enter your code" errors={form.fieldErrors} onSubmit={() => form.submit({ email, code })}>
        <TextInput
          label="Sign-in code"
          name="code"
          value={code}
          onChange={setCode}
          inputMode="numeric"
          autoComplete="one-time-code"
          isRequired
          autoFocus
          maxLength={6}
        />
        <SubmitButton pending={form.pending}>Sign in</SubmitButton>
        <FormError error={form.formError ?? resend.formError} />
      </ApiForm>
      <div className="form-links">
        <Action variant="quiet" onPress={() => resend.submit({ email })} busy={resend.pending}>
          Send a new code
        </Action>
        <Action variant="quiet" onPress={onBack}>
          Use another address
        </Action>
        <span role="status">{resent ? 'A new code is on its way; the one before no longer works.' : ''}</span>
      </div>
    </>
  );
}

export default function SignInPage() {
  const [email, setEmail] = useState('');
  const [step, setStep] = useState<'address' | 'code'>('address');
  document.title = 'Sign in · Postlane';
  return (
    <main id="main" className="sign-in">
      <div className="sign-in-card">
        <p className="brand">Postlane</p>
        <h1>Sign in</h1>
        {step === 'address' ? (
          <>
            <p>We email you a code: no password to remember.</p>
            <AddressStep email={email} setEmail={setEmail} onSent={() => setStep('code')} />
          </>
        ) : (
          <CodeStep email={email} onBack={() => setStep('address')} />
        )}
      </div>
    </main>
  );
}
