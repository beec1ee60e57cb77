/**
 * The composer of a draft: its audience and segment (tags and custom fields)
 * with the number of recipients shown as they change, the sender from the
 * account's verified domains, subject, content or a stored template, and
 * tracking. Saving creates the draft (then its page opens) or changes it.
 */
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Label } from 'react-aria-components/Label';
import { Switch } from 'react-aria-components/Switch';
import { Text } from 'react-aria-components/Text';
import { TextArea } from 'react-aria-components/TextArea';
import { TextField } from 'react-aria-components/TextField';
import { FieldError } from 'react-aria-components/FieldError';
import * as v from 'valibot';
import { createBroadcastBody, segmentSchema, updateBroadcastBody, type Segment } from '#shared/broadcasts/schema.ts';
import { api, call } from '../../api/client.ts';
import { navigate } from '../../router.ts';
import { ApiForm, Choice, FormError, SubmitButton, TextInput, useFieldError } from '../../ui/fields.tsx';
import { SelectField } from '../../ui/select.tsx';
import { useFormSubmit } from '../../ui/use-form-submit.ts';
import type { Broadcast } from './status.tsx';

type Source = 'content' | 'template';

/** What the form holds: text as typed, turned into the API's body only on submit. */
interface Draft {
  name: string;
  audienceId: string;
  tags: string;
  anyTags: string;
  fields: string;
  fromName: string;
  fromLocal: string;
  fromDomain: string;
  subject: string;
  source: Source;
  content: string;
  templateId: string;
  opens: boolean;
  clicks: boolean;
}

const list = (text: string) =>
  text
    .split(',')
    .map((tag) => tag.trim())
    .filter(Boolean);

/** `plan=pro` per line; `true`, `false` and numbers are typed as such (custom fields compare strictly), quotes keep text: `zip="0420"`. */
function parseFields(text: string): Record<string, string | number | boolean> {
  const fields: Record<string, string | number | boolean> = {};
  for (const line of text.split('\n')) {
    const at = line.indexOf('=');
    if (at < 1) continue;
    const key = line.slice(0, at).trim();
    const raw = line.slice(at + 1).trim();
    fields[key] = raw === 'true' ? true : raw === 'false' ? false : /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : /^".*"$/.test(raw) ? raw.slice(1, -1) : raw;
  }
  return fields;
}

const formatField = (value: unknown) =>
  typeof value === 'string' && (/^-?\d+(\.\d+)?$/.test(value) || value === 'true' || value === 'false') ? `"${value}"` : String(value);

export function segmentOf(draft: Pick<Draft, 'tags' | 'anyTags' | 'fields'>): Segment | undefined {
  const tags = list(draft.tags);
  const anyTags = list(draft.anyTags);
  const customFields = parseFields(draft.fields);
  const segment = {
    ...(tags.length ? { tags } : {}),
    ...(anyTags.length ? { anyTags } : {}),
    ...(Object.keys(customFields).length ? { customFields } : {}),
  };
  return Object.keys(segment).length ? segment : undefined;
}

/** `Acme <news@acme.example>` into its parts; the domain kept only if it is one of the verified ones offered. */
function fromParts(from: string): Pick<Draft, 'fromName' | 'fromLocal' | 'fromDomain'> {
  const match = /^(?:"?([^"<]*?)"?\s*<)?([^@<>\s]+)@([^>\s]+)>?$/.exec(from.trim());
  return { fromName: match?.[1]?.trim() ?? '', fromLocal: match?.[2] ?? '', fromDomain: match?.[3] ?? '' };
}

function draftOf(broadcast: Broadcast | undefined): Draft {
  const segment = broadcast?.segment;
  return {
    name: broadcast?.name ?? '',
    audienceId: broadcast?.audienceId ?? '',
    tags: segment?.tags?.join(', ') ?? '',
    anyTags: segment?.anyTags?.join(', ') ?? '',
    fields: Object.entries(segment?.customFields ?? {})
      .map(([key, value]) => `${key}=${formatField(value)}`)
      .join('\n'),
    ...(broadcast ? fromParts(broadcast.from) : { fromName: '', fromLocal: 'news', fromDomain: '' }),
    subject: broadcast?.subject ?? '',
    source: broadcast?.templateId ? 'template' : 'content',
    content: broadcast?.content ?? '',
    templateId: broadcast?.templateId ?? '',
    opens: broadcast?.tracking.opens ?? false,
    clicks: broadcast?.tracking.clicks ?? false,
  };
}

interface Body {
  name?: string;
  audienceId: string;
  segment?: Segment | null;
  from: string;
  subject: string;
  templateId?: string;
  content?: string;
  tracking: { opens: boolean; clicks: boolean };
}

function bodyOf(draft: Draft, existing: boolean): Body {
  const segment = segmentOf(draft);
  const address = `${draft.fromLocal.trim()}@${draft.fromDomain}`;
  const name = draft.fromName.trim().replace(/["\\]/g, '');
  return {
    ...(draft.name.trim() ? { name: draft.name.trim() } : {}),
    audienceId: draft.audienceId,
    // A PATCH clears a segment with null; a create simply has none.
    ...(segment ? { segment } : existing ? { segment: null } : {}),
    from: name ? `"${name}" <${address}>` : address,
    subject: draft.subject,
    ...(draft.source === 'template' ? { templateId: draft.templateId } : { content: draft.content }),
    tracking: { opens: draft.opens, clicks: draft.clicks },
  };
}

function TextAreaField(props: { label: string; name: string; value: string; onChange: (value: string) => void; description?: string; rows?: number }) {
  const error = useFieldError(props.name);
  return (
    <TextField isInvalid={error.isInvalid} className="field" name={props.name} value={props.value} onChange={props.onChange}>
      <Label>{props.label}</Label>
      <TextArea rows={props.rows ?? 4} className="textarea" />
      {props.description ? (
        <Text slot="description" className="field-description">
          {props.description}
        </Text>
      ) : null}
      <FieldError className="field-error">{error.message}</FieldError>
    </TextField>
  );
}

function Toggle({ label, value, onChange }: { label: string; value: boolean; onChange: (value: boolean) => void }) {
  return (
    <Switch className="switch" isSelected={value} onChange={onChange}>
      <span className="switch-track" aria-hidden="true" />
      {label}
    </Switch>
  );
}

/** The value settles for a moment before it is used: a count per keystroke would be a query per keystroke. */
function useSettled<T>(value: T, delayMs = 400): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), delayMs);
    return () => clearTimeout(timer);
  }, [value, delayMs]);
  return settled;
}

/** How many subscribed contacts the audience and segment reach, announced politely as it changes. */
function RecipientCount({ audienceId, segment }: { audienceId: string; segment: Segment | undefined }) {
  const key = useSettled(JSON.stringify([audienceId, segment ?? null]));
  const [settledAudience, settledSegment] = JSON.parse(key) as [string, Segment | null];
  const valid = settledSegment === null || v.safeParse(segmentSchema, settledSegment).success;
  const count = useQuery({
    queryKey: ['segment-count', key],
    queryFn: () =>
      call(
        api.POST('/api/audiences/{id}/segment-count', { params: { path: { id: settledAudience } }, body: settledSegment ? { segment: settledSegment } : {} }),
      ),
    enabled: settledAudience !== '' && valid,
  });
  let text = 'Choose an audience to see how many contacts it reaches.';
  if (settledAudience !== '' && count.data) {
    const { recipients, exact, subscribed } = count.data.data;
    text = `${exact ? '' : 'About '}${recipients.toLocaleString()} recipient${recipients === 1 ? '' : 's'} of ${subscribed.toLocaleString()} subscribed contact${subscribed === 1 ? '' : 's'}.`;
  } else if (settledAudience !== '' && count.isError) text = 'The number of recipients could not be counted.';
  else if (settledAudience !== '' && valid) text = 'Counting recipients…';
  return (
    <p className="recipient-count" role="status" data-testid="recipient-count">
      {text}
    </p>
  );
}

export function Composer({ broadcast }: { broadcast?: Broadcast }) {
  const [draft, setDraft] = useState<Draft>(() => draftOf(broadcast));
  const set =
    <K extends keyof Draft>(key: K) =>
    (value: Draft[K]) =>
      setDraft((current) => ({ ...current, [key]: value }));
  const audiences = useQuery({ queryKey: ['audiences'], queryFn: () => call(api.GET('/api/audiences', { params: { query: { limit: '100' } } })) });
  const domains = useQuery({ queryKey: ['domains'], queryFn: () => call(api.GET('/api/domains', { params: { query: { limit: '100' } } })) });
  const templates = useQuery({ queryKey: ['templates'], queryFn: () => call(api.GET('/api/templates', { params: { query: { limit: '100' } } })) });
  const verified = (domains.data?.domains ?? []).filter((domain) => domain.verified).map((domain) => domain.domain);
  // The first verified domain until the person picks one.
  const fromDomain = draft.fromDomain || verified[0] || '';
  const form = useFormSubmit({
    schema: broadcast ? updateBroadcastBody : createBroadcastBody,
    fields: ['name', 'audienceId', 'segment', 'from', 'subject', 'content', 'templateId', 'tracking'],
    send: (body: Body) =>
      broadcast
        ? call(api.PATCH('/api/broadcasts/{id}', { params: { path: { id: broadcast.id } }, body }))
        : call(api.POST('/api/broadcasts', { body: { ...body, segment: body.segment ?? undefined } })),
    invalidates: [['broadcasts']],
    onDone: (result) => {
      if (!broadcast) navigate(`/broadcasts/${result.data.id}`, { replace: true });
    },
  });
  return (
    <ApiForm
      label={broadcast ? 'Change the draft' : 'Compose a broadcast'}
      errors={form.fieldErrors}
      onSubmit={() => form.submit(bodyOf({ ...draft, fromDomain }, !!broadcast))}
    >
      <TextInput label="Name" name="name" value={draft.name} onChange={set('name')} description="For you only; the subject when left empty." maxLength={256} />
      <SelectField
        label="Audience"
        name="audienceId"
        value={draft.audienceId}
        onChange={set('audienceId')}
        options={[
          { value: '', label: 'Choose an audience' },
          ...(audiences.data?.audiences ?? []).map((audience) => ({ value: audience.id, label: `${audience.name} (${audience.count})` })),
        ]}
      />
      <fieldset className="fieldset">
        <legend>Segment</legend>
        <p className="field-description">Only subscribed contacts are mailed. Leave all three empty for the whole audience.</p>
        <TextInput label="Has all of these tags" name="segment" value={draft.tags} onChange={set('tags')} description="Separated by commas." />
        <TextInput label="Has at least one of these tags" name="anyTags" value={draft.anyTags} onChange={set('anyTags')} description="Separated by commas." />
        <TextAreaField
          label="Custom fields equal to"
          name="customFields"
          value={draft.fields}
          onChange={set('fields')}
          rows={2}
          description='One per line, as plan=pro. Numbers and true or false match only numbers and booleans; quote to match text, as zip="0420".'
        />
        <RecipientCount audienceId={draft.audienceId} segment={segmentOf(draft)} />
      </fieldset>
      <fieldset className="fieldset">
        <legend>Sender</legend>
        <TextInput label="Sender name" name="fromName" value={draft.fromName} onChange={set('fromName')} autoComplete="off" />
        <div className="from-address">
          <TextInput label="Address" name="from" value={draft.fromLocal} onChange={set('fromLocal')} autoComplete="off" description="Before the @." />
          <SelectField
            label="Domain"
            name="fromDomain"
            value={fromDomain}
            onChange={set('fromDomain')}
            options={verified.length ? verified.map((domain) => ({ value: domain, label: `@${domain}` })) : [{ value: '', label: 'No verified domain' }]}
            description="A verified domain of the account."
          />
        </div>
      </fieldset>
      <TextInput label="Subject" name="subject" value={draft.subject} onChange={set('subject')} description="May use variables, as {{firstName}}." />
      <Choice
        label="Message"
        name="source"
        value={draft.source}
        onChange={set('source')}
        options={[
          { value: 'content', label: 'Write it here', description: 'HTML with variables; an unsubscribe link is added when it has none' },
          { value: 'template', label: 'Use a template', description: 'one of the stored templates' },
        ]}
      />
      {draft.source === 'content' ? (
        <TextAreaField
          label="Content"
          name="content"
          value={draft.content}
          onChange={set('content')}
          rows={8}
          description="{{firstName}}, {{email}} and each custom field are the contact's."
        />
      ) : (
        <SelectField
          label="Template"
          name="templateId"
          value={draft.templateId}
          onChange={set('templateId')}
          options={[
            { value: '', label: 'Choose a template' },
            ...(templates.data?.templates ?? []).map((template) => ({ value: template.id, label: template.name })),
          ]}
        />
      )}
      <fieldset className="fieldset">
        <legend>Tracking</legend>
        <Toggle label="Track opens" value={draft.opens} onChange={set('opens')} />
        <Toggle label="Track clicks" value={draft.clicks} onChange={set('clicks')} />
      </fieldset>
      <SubmitButton pending={form.pending}>{broadcast ? 'Save the draft' : 'Save as draft'}</SubmitButton>
      {form.result && broadcast ? (
        <p className="notice" role="status">
          Saved.
        </p>
      ) : null}
      <FormError error={form.formError} />
    </ApiForm>
  );
}
