/**
 * Making a key: its name, what it may do (everything, or only send), live or
 * test, and for a sending key optionally the one verified domain it may send
 * from. The secret is shown once, with a copy button, and never again.
 */
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { createApiKeyBody } from '#shared/accounts/schema.ts';
import { api, call } from '../../api/client.ts';
import { ApiForm, Choice, FormError, SubmitButton, TextInput } from '../../ui/fields.tsx';
import { SecretOnce } from '../../ui/secret-once.tsx';
import { SelectField } from '../../ui/select.tsx';
import { useFormSubmit } from '../../ui/use-form-submit.ts';

type Permission = 'full' | 'sending';
type Env = 'live' | 'test';

const ANY_DOMAIN = '';

function DomainChoice({ value, onChange }: { value: string; onChange: (domain: string) => void }) {
  const domains = useQuery({ queryKey: ['domains'], queryFn: () => call(api.GET('/api/domains', { params: { query: { limit: '100' } } })) });
  const verified = (domains.data?.domains ?? []).filter((domain) => domain.verified);
  return (
    <SelectField
      label="Sending domain"
      name="domain"
      value={value}
      onChange={onChange}
      options={[{ value: ANY_DOMAIN, label: 'Any verified domain' }, ...verified.map((domain) => ({ value: domain.domain, label: domain.domain }))]}
      description="A key bound to one domain can send only from addresses at that domain."
    />
  );
}

export function CreateKey() {
  const [name, setName] = useState('');
  const [permission, setPermission] = useState<Permission>('sending');
  const [env, setEnv] = useState<Env>('live');
  const [domain, setDomain] = useState(ANY_DOMAIN);
  const form = useFormSubmit({
    schema: createApiKeyBody,
    fields: ['name', 'permission', 'env', 'domain'],
    send: (body: { name: string; permission: Permission; env: Env; domain?: string }) => call(api.POST('/api/api-keys', { body })),
    invalidates: [['api-keys']],
  });
  if (form.result) {
    return (
      <SecretOnce
        label={`Secret of the key ${form.result.data.name}`}
        secret={form.result.data.key}
        onDone={() => {
          setName('');
          setDomain(ANY_DOMAIN);
          form.reset();
        }}
      />
    );
  }
  return (
    <ApiForm
      label="Create an API key"
      errors={form.fieldErrors}
      onSubmit={() => form.submit({ name, permission, env, ...(permission === 'sending' && domain !== ANY_DOMAIN ? { domain } : {}) })}
    >
      <TextInput
        label="Name"
        name="name"
        value={name}
        onChange={setName}
        isRequired
        maxLength={50}
        description="Where the key is used, e.g. Production server."
      />
      <Choice
        label="Permission"
        name="permission"
        value={permission}
        onChange={setPermission}
        options={[
          { value: 'sending', label: 'Sending', description: 'the send endpoints only: for servers that send email' },
          { value: 'full', label: 'Full access', description: 'everything, including contacts, templates and keys' },
        ]}
      />
      <Choice
        label="Environment"
        name="env"
        value={env}
        onChange={setEnv}
        options={[
          { value: 'live', label: 'Live', description: 'sends real email and counts against the quota' },
          { value: 'test', label: 'Test', description: 'accepts sends without delivering them' },
        ]}
      />
      {permission === 'sending' ? <DomainChoice value={domain} onChange={setDomain} /> : null}
      <SubmitButton pending={form.pending}>Create key</SubmitButton>
      <FormError error={form.formError} />
    </ApiForm>
  );
}
