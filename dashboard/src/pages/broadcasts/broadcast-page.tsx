/**
 * A broadcast's page. A draft: the composer, a test send, and sending now or
 * at a time. Afterwards: what it was, its progress (refreshed every few
 * seconds while it is scheduled or sending), cancel behind a confirmation,
 * and its results as its messages' events are recorded (and the recipients
 * who unsubscribed through its links). A draft or a scheduled one can be
 * deleted after confirming, as the API allows.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type ReactNode, useState } from 'react';
import type * as v from 'valibot';
import { testBroadcastBody } from '#shared/broadcasts/schema.ts';
import { api, call } from '../../api/client.ts';
import type { PageProps } from '../../routes.tsx';
import { navigate } from '../../router.ts';
import { AppLink } from '../../ui/app-link.tsx';
import { ConfirmAction } from '../../ui/confirm.tsx';
import { ApiForm, FormError, SubmitButton, TextInput } from '../../ui/fields.tsx';
import { PageHeader, QueryView, Section, Time } from '../../ui/page.tsx';
import { useFormSubmit } from '../../ui/use-form-submit.ts';
import { Composer } from './compose.tsx';
import { SendOrSchedule } from './schedule.tsx';
import { type Broadcast, BroadcastStatus, isActive, Progress } from './status.tsx';

const POLL_MS = 2_000;

function TestSend({ broadcast }: { broadcast: Broadcast }) {
  const [to, setTo] = useState('');
  const form = useFormSubmit({
    schema: testBroadcastBody,
    fields: ['to'],
    send: (body: v.InferInput<typeof testBroadcastBody>) => call(api.POST('/api/broadcasts/{id}/test', { params: { path: { id: broadcast.id } }, body })),
  });
  const addresses = to
    .split(',')
    .map((address) => address.trim())
    .filter(Boolean);
  return (
    <ApiForm label="Send a test copy" className="form form-inline" errors={form.fieldErrors} onSubmit={() => form.submit({ to: addresses })}>
      <TextInput
        label="Test addresses"
        name="to"
        type="text"
        value={to}
        onChange={setTo}
        description="1 to 5, separated by commas. The subject starts with [Test]."
      />
      <SubmitButton pending={form.pending}>Send a test</SubmitButton>
      {form.result ? (
        <p className="notice" role="status">
          {form.result.message}.
        </p>
      ) : null}
      <FormError error={form.formError} />
    </ApiForm>
  );
}

function Results({ broadcast }: { broadcast: Broadcast }) {
  const stats = useQuery({
    // Read again as the progress moves (the broadcast's own poll), and once more when it stops.
    queryKey: ['broadcasts', broadcast.id, 'stats', broadcast.status, broadcast.counts.sent],
    placeholderData: (previous) => previous,
    queryFn: () => call(api.GET('/api/broadcasts/{id}/stats', { params: { path: { id: broadcast.id } } })),
  });
  return (
    <QueryView query={stats} label="Results">
      {({ data }) => {
        const rows = [
          ['Sent', data.sent],
          ['Delivered', data.delivered],
          ['Bounced', data.bounced],
          ['Complained', data.complained],
          ['Opened', data.opened],
          ['Clicked', data.clicked],
          ['Unsubscribed', data.unsubscribed],
        ] as const;
        return (
          <dl className="results">
            {rows.map(([label, value]) => (
              <div key={label} className="result">
                <dt>{label}</dt>
                <dd>
                  {value.toLocaleString()}
                  {label !== 'Sent' && data.sent > 0 ? <span className="muted result-share"> {Math.round((value / data.sent) * 1000) / 10}%</span> : null}
                </dd>
              </div>
            ))}
          </dl>
        );
      }}
    </QueryView>
  );
}

/** `tags a and b; any of c; plan = pro`: a segment in words. */
function segmentText(segment: Broadcast['segment']): string {
  if (!segment) return 'every subscribed contact';
  return [
    segment.tags?.length ? `tagged ${segment.tags.join(' and ')}` : '',
    segment.anyTags?.length ? `tagged any of ${segment.anyTags.join(', ')}` : '',
    ...Object.entries(segment.customFields ?? {}).map(([key, value]) => `${key} = ${JSON.stringify(value)}`),
  ]
    .filter(Boolean)
    .join('; ');
}

function Summary({ broadcast }: { broadcast: Broadcast }) {
  const audience = useQuery({
    queryKey: ['audiences', broadcast.audienceId],
    queryFn: () => call(api.GET('/api/audiences/{id}', { params: { path: { id: broadcast.audienceId } } })),
  });
  const rows: [string, ReactNode][] = [
    ['Audience', audience.data?.data.name ?? broadcast.audienceId],
    ['Segment', segmentText(broadcast.segment)],
    ['From', broadcast.from],
    ['Subject', broadcast.subject],
    ['Tracking', [broadcast.tracking.opens ? 'opens' : '', broadcast.tracking.clicks ? 'clicks' : ''].filter(Boolean).join(' and ') || 'none'],
    ['Scheduled', <Time key="s" value={broadcast.scheduledAt} absent="no: sent when asked" />],
    ['Started', <Time key="t" value={broadcast.startedAt} absent="not yet" />],
    ['Completed', <Time key="c" value={broadcast.completedAt} absent="not yet" />],
  ];
  return (
    <dl className="facts">
      {rows.map(([name, value]) => (
        <div key={name}>
          <dt>{name}</dt>
          <dd className="cell-wrap">{value}</dd>
        </div>
      ))}
    </dl>
  );
}

function Cancel({ broadcast }: { broadcast: Broadcast }) {
  const queryClient = useQueryClient();
  if (!['scheduled', 'sending', 'paused'].includes(broadcast.status)) return null;
  return (
    <ConfirmAction
      label="Cancel broadcast"
      title={`Cancel ${broadcast.name}?`}
      confirmLabel="Cancel broadcast"
      onConfirm={async () => {
        await call(api.POST('/api/broadcasts/{id}/cancel', { params: { path: { id: broadcast.id } } }));
        await queryClient.invalidateQueries({ queryKey: ['broadcasts'] });
      }}
    >
      <p>What was sent stays sent; nothing more goes out. A cancelled broadcast cannot be sent again.</p>
    </ConfirmAction>
  );
}

/** The API deletes only what has not started: a draft, or a scheduled broadcast (its schedule goes with it). */
const DELETABLE: readonly Broadcast['status'][] = ['draft', 'scheduled'];

function Delete({ broadcast }: { broadcast: Broadcast }) {
  const queryClient = useQueryClient();
  if (!DELETABLE.includes(broadcast.status)) return null;
  return (
    <ConfirmAction
      label="Delete"
      ariaLabel={`Delete broadcast ${broadcast.name}`}
      title={`Delete ${broadcast.name}?`}
      confirmLabel="Delete broadcast"
      onConfirm={async () => {
        await call(api.DELETE('/api/broadcasts/{id}', { params: { path: { id: broadcast.id } } }));
        // The list only: invalidating this page's own query would read the deleted broadcast again (a 404) before it leaves.
        await queryClient.invalidateQueries({ queryKey: ['broadcasts', 'list'] });
        navigate('/broadcasts', { replace: true });
      }}
    >
      <p>
        {broadcast.status === 'scheduled' ? 'It will not be sent, and its content goes with it.' : 'Nothing has been sent; its content goes with it.'} This
        cannot be undone.
      </p>
    </ConfirmAction>
  );
}

export default function BroadcastPage({ params }: PageProps) {
  const id = params.id!;
  const broadcast = useQuery({
    queryKey: ['broadcasts', id],
    queryFn: () => call(api.GET('/api/broadcasts/{id}', { params: { path: { id } } })),
    refetchInterval: (query) => (query.state.data && isActive(query.state.data.data.status) ? POLL_MS : false),
  });
  const title = broadcast.data?.data.name ?? 'Broadcast';
  return (
    <>
      <PageHeader title={title}>
        <AppLink href="/broadcasts">All broadcasts</AppLink>
      </PageHeader>
      <QueryView query={broadcast} label="The broadcast">
        {({ data }) => (
          <>
            <p className="status-line">
              <BroadcastStatus broadcast={data} /> <Progress broadcast={data} label={`Progress of ${data.name}`} />
            </p>
            {data.status === 'draft' ? (
              <>
                <Section title="Draft" actions={<Delete broadcast={data} />}>
                  <Composer key={data.updatedAt} broadcast={data} />
                </Section>
                <Section title="Test">
                  <TestSend broadcast={data} />
                </Section>
                <Section title="Send">
                  <SendOrSchedule broadcast={data} />
                </Section>
              </>
            ) : (
              <>
                <Section
                  title="Details"
                  actions={
                    <div className="row-actions">
                      <Cancel broadcast={data} />
                      <Delete broadcast={data} />
                    </div>
                  }
                >
                  <Summary broadcast={data} />
                </Section>
                {data.status === 'scheduled' || (data.status === 'cancelled' && data.counts.recipients === 0) ? null : (
                  <Section title="Results">
                    <Results broadcast={data} />
                  </Section>
                )}
              </>
            )}
          </>
        )}
      </QueryView>
    </>
  );
}
