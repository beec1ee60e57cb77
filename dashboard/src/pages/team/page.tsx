/**
 * Team: invite a person by address (they get an email with the dashboard's
 * address and sign in with a code), change a member's role, remove a member.
 * The last admin can be neither demoted nor removed: the buttons say so, and
 * the API refuses it anyway (409 LAST_ADMIN).
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { addMemberBody } from '#shared/people/schema.ts';
import { api, call, type paths } from '../../api/client.ts';
import { asApiError, describeError } from '../../api/errors.ts';
import { SESSION_KEY, useSession } from '../../session.ts';
import { ConfirmAction } from '../../ui/confirm.tsx';
import { ApiForm, Action, Choice, FormError, SubmitButton, TextInput } from '../../ui/fields.tsx';
import { Badge, PageHeader, QueryView, Section, Time, TableScroll } from '../../ui/page.tsx';
import { useFormSubmit } from '../../ui/use-form-submit.ts';

type Member = paths['/api/team']['get']['responses']['200']['content']['application/json']['members'][number];
type Role = Member['role'];

function Invite() {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('member');
  const [invited, setInvited] = useState<string | undefined>();
  const form = useFormSubmit({
    schema: addMemberBody,
    fields: ['email', 'role'],
    send: (body: { email: string; role: Role }) => call(api.POST('/api/team', { body })),
    invalidates: [['team']],
    onDone: ({ data }) => {
      setInvited(data.email);
      setEmail('');
    },
  });
  return (
    <ApiForm
      label="Invite a person"
      errors={form.fieldErrors}
      onSubmit={() => {
        setInvited(undefined);
        form.submit({ email, role });
      }}
    >
      <TextInput label="Email address" name="email" type="email" value={email} onChange={setEmail} isRequired />
      <Choice
        label="Role"
        name="role"
        value={role}
        onChange={setRole}
        options={[
          { value: 'member', label: 'Member', description: 'emails, statistics and content; no keys, domains, webhooks or team' },
          { value: 'admin', label: 'Admin', description: 'everything, including keys, domains, webhooks and the team' },
        ]}
      />
      <SubmitButton pending={form.pending}>Invite</SubmitButton>
      <FormError error={form.formError} />
      <p role="status">{invited ? `${invited} is in the team; an invitation is on its way to them.` : ''}</p>
    </ApiForm>
  );
}

function MemberActions({ member, lastAdmin, isYou }: { member: Member; lastAdmin: boolean; isYou: boolean }) {
  const queryClient = useQueryClient();
  const path = { id: member.id };
  const refresh = async () => {
    await queryClient.invalidateQueries({ queryKey: ['team'] });
    // Demoting yourself changes what your own session may open.
    if (isYou) await queryClient.invalidateQueries({ queryKey: SESSION_KEY });
  };
  const nextRole: Role = member.role === 'admin' ? 'member' : 'admin';
  const change = useMutation({
    mutationFn: () => call(api.PATCH('/api/team/{id}', { params: { path }, body: { role: nextRole } })),
    onSuccess: refresh,
  });
  if (lastAdmin) return <span className="muted">The last admin: make another member admin first.</span>;
  return (
    <div className="row-actions">
      <Action onPress={() => change.mutate()} busy={change.isPending} aria-label={`Make ${nextRole}: ${member.email}`}>
        Make {nextRole}
      </Action>
      <ConfirmAction
        label="Remove"
        ariaLabel={`Remove ${member.email}`}
        title={`Remove ${member.email}?`}
        confirmLabel="Remove member"
        onConfirm={async () => {
          await call(api.DELETE('/api/team/{id}', { params: { path } }));
          await refresh();
        }}
      >
        <p>{isYou ? 'You will be signed out of this account at once.' : 'They are signed out of this account at once and can no longer sign in to it.'}</p>
      </ConfirmAction>
      {change.error ? (
        <p className="notice notice-error" role="alert">
          {describeError(asApiError(change.error))}
        </p>
      ) : null}
    </div>
  );
}

export default function TeamPage() {
  const session = useSession();
  const team = useQuery({ queryKey: ['team'], queryFn: () => call(api.GET('/api/team', { params: { query: { limit: '100' } } })) });
  return (
    <>
      <PageHeader title="Team" />
      <Section title="Invite a person">
        <Invite />
      </Section>
      <Section title="Members">
        <QueryView query={team} label="Members">
          {({ members }) => {
            const admins = members.filter((member) => member.role === 'admin').length;
            return (
              <TableScroll label="Members of this account">
                <table className="table">
                  <caption className="visually-hidden">Members of this account</caption>
                  <thead>
                    <tr>
                      <th scope="col">Email</th>
                      <th scope="col">Role</th>
                      <th scope="col">Joined</th>
                      <th scope="col">Last sign-in</th>
                      <th scope="col">Actions</th>
                    </tr>
                  </thead>
                  <tbody>
                    {members.map((member) => {
                      const isYou = member.id === session.data?.member.id;
                      return (
                        <tr key={member.id}>
                          <th scope="row" className="cell-wrap">
                            {member.email}
                            {isYou ? <span className="muted"> (you)</span> : null}
                          </th>
                          <td>
                            <Badge tone={member.role === 'admin' ? 'neutral' : 'good'}>{member.role}</Badge>
                          </td>
                          <td>
                            <Time value={member.createdAt} />
                          </td>
                          <td>
                            <Time value={member.lastSignInAt} />
                          </td>
                          <td>
                            <MemberActions member={member} lastAdmin={member.role === 'admin' && admins === 1} isYou={isYou} />
                          </td>
                        </tr>
                      );
                    })}
                  </tbody>
                </table>
              </TableScroll>
            );
          }}
        </QueryView>
      </Section>
    </>
  );
}
