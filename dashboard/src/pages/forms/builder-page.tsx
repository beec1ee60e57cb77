/**
 * A form's builder (/forms/new, /forms/:id): title and description, the
 * fields in order (add any type, edit, move up or down, remove), what happens
 * on a submission (message, notification and its sender, storing, an
 * audience with double opt-in, captcha), the hosted page's look, save; once
 * saved and published, its address (the API's `publishedUrl`) and an embed
 * snippet. Everything typed stays on screen whatever
 * the API answers; a refusal shows beside the field it names.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useState } from 'react';
import { Switch } from 'react-aria-components/Switch';
import { createFormBody, FIELD_TYPES, updateFormBody, type FieldType } from '#shared/forms/schema.ts';
import { api, call } from '../../api/client.ts';
import { asApiError, type ApiError } from '../../api/errors.ts';
import type { PageProps } from '../../routes.tsx';
import { AppLink } from '../../ui/app-link.tsx';
import { Action, ApiForm, FormError, SubmitButton, TextInput, useFieldError } from '../../ui/fields.tsx';
import { PageHeader, QueryView, Section } from '../../ui/page.tsx';
import { SelectField } from '../../ui/select.tsx';
import { checkInput } from '../../ui/use-form-submit.ts';
import { moved } from '../templates/draft.ts';
import { TextAreaInput } from '../templates/text-area.tsx';
import { draftOf, formBody, newDraft, newField, TYPE_NAMES, type Draft, type Form } from './draft.ts';
import { FieldEditor } from './field-editor.tsx';
import { Publish } from './publish.tsx';
import { useCreatedHere } from '../../ui/use-created-here.ts';

/** The fields the builder shows, by the API's `field` path; a refusal naming another is shown above the form. */
const SHOWN_FIELD =
  /^(?:title|description|slug|audienceId|fields\[\d+\]\.(?:id|label|placeholder|options)|settings\.(?:successMessage|notifyEmail|from|enableCaptcha|storeResponses|doubleOptIn)|appearance\.(?:backgroundColor|primaryColor|fontFamily)|buttonCustomization\.(?:text|variant))$/;

/** `fields[1].options[0]` is shown on the options box it came from. */
const shownName = (field: string) => field.replace(/(\.options)\[\d+\]$/, '$1');

/**
 * An on/off setting with what it does under it; the API's message for its
 * `name` (double opt-in without an audience) is shown there too, and both are
 * read with it.
 */
function Toggle(props: { label: string; name?: string; description?: string; value: boolean; onChange: (value: boolean) => void }) {
  const error = useFieldError(props.name ?? '');
  const errorId = useId();
  const descriptionId = useId();
  const describedBy = [props.description ? descriptionId : '', error.message ? errorId : ''].filter(Boolean).join(' ');
  return (
    <div className="field">
      <Switch
        className="switch"
        isSelected={props.value}
        onChange={props.onChange}
        {...(describedBy ? { 'aria-describedby': describedBy } : {})}
        {...(error.message ? { 'aria-invalid': true } : {})}
      >
        <span className="switch-track" aria-hidden="true" />
        {props.label}
      </Switch>
      {props.description ? (
        <div id={descriptionId} className="field-description">
          {props.description}
        </div>
      ) : null}
      {error.message ? (
        <p id={errorId} className="field-error">
          {error.message}
        </p>
      ) : null}
    </div>
  );
}

function AudienceSelect(props: { value: string; onChange: (value: string) => void }) {
  const audiences = useQuery({
    queryKey: ['audiences', 'list', 'all'],
    queryFn: () => call(api.GET('/api/audiences', { params: { query: { limit: '100' } } })),
  });
  // A select item needs a non-empty key: `none` stands for "no audience".
  const options = [{ value: 'none', label: 'None' }, ...(audiences.data?.audiences ?? []).map((audience) => ({ value: audience.id, label: audience.name }))];
  return (
    <SelectField
      label="Add submitters to audience"
      name="audienceId"
      value={props.value === '' ? 'none' : props.value}
      onChange={(value) => props.onChange(value === 'none' ? '' : value)}
      options={options}
      description="The form's email field subscribes the submitter to this audience (or updates the contact)."
    />
  );
}

function Builder(props: { initial: Form | undefined; onCreated: (id: string) => void }) {
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState<Draft>(() => (props.initial ? draftOf(props.initial) : newDraft()));
  const [form, setForm] = useState(props.initial);
  const [newType, setNewType] = useState<FieldType>('text');
  const [refusal, setRefusal] = useState<ApiError>();
  const [saving, setSaving] = useState(false);
  const [justSaved, setJustSaved] = useState(false);
  const [saved, setSaved] = useState(() => (props.initial ? JSON.stringify(formBody(draftOf(props.initial), true)) : undefined));
  const dirty = JSON.stringify(formBody(draft, true)) !== saved;

  useEffect(() => {
    if (!dirty) return undefined;
    // Closing the tab or reloading with unsaved changes asks first.
    const warn = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [dirty]);

  const edit = (change: Partial<Draft>) => {
    setJustSaved(false);
    setDraft((current) => ({ ...current, ...change }));
  };
  const setFields = (fields: Draft['fields']) => edit({ fields });

  async function save() {
    const body = formBody(draft, form !== undefined);
    setRefusal(undefined);
    const problem = checkInput(form === undefined ? createFormBody : updateFormBody, body);
    if (problem) {
      setRefusal(problem);
      return;
    }
    setSaving(true);
    try {
      const { data } =
        form === undefined
          ? await call(api.POST('/api/forms', { body: body as never }))
          : await call(api.PATCH('/api/forms/{id}', { params: { path: { id: form.id } }, body: body as never }));
      setForm(data);
      // What was sent is what is stored (with the slug the API may have made): the draft is clean again.
      setSaved(JSON.stringify(formBody({ ...draft, slug: data.slug }, true)));
      // The slug the API made from the title, when none was typed.
      setDraft((current) => ({ ...current, slug: data.slug }));
      setJustSaved(true);
      queryClient.setQueryData(['forms', data.id], { success: true, data });
      void queryClient.invalidateQueries({ queryKey: ['forms', 'list'] });
      if (form === undefined) props.onCreated(data.id);
    } catch (error) {
      setRefusal(asApiError(error));
    } finally {
      setSaving(false);
    }
  }

  const onField = refusal?.field !== undefined && SHOWN_FIELD.test(shownName(refusal.field));
  const errors = onField ? { [shownName(refusal!.field!)]: refusal!.message } : {};

  return (
    <div className="form-builder">
      <ApiForm label="Form" className="form form-builder-form" errors={errors} onSubmit={() => void save()}>
        <div className="form-builder-column">
          <TextInput
            label="Title"
            name="title"
            value={draft.title}
            onChange={(title) => edit({ title })}
            isRequired
            description="Shown at the top of the form."
          />
          <TextAreaInput label="Description" name="description" value={draft.description} onChange={(description) => edit({ description })} rows={2} />
          <TextInput
            label="Slug"
            name="slug"
            value={draft.slug}
            onChange={(slug) => edit({ slug })}
            description="The end of the hosted page's address: lower-case words joined by hyphens. Left empty, it is made from the title."
          />

          <Section title="Fields">
            <ol className="form-fields">
              {draft.fields.map((field, index) => (
                <FieldEditor
                  key={field.key}
                  field={field}
                  index={index}
                  count={draft.fields.length}
                  onChange={(changed) => setFields(draft.fields.map((item) => (item.key === changed.key ? changed : item)))}
                  onMove={(to) => setFields(moved(draft.fields, index, to))}
                  onRemove={() => setFields(draft.fields.filter((item) => item.key !== field.key))}
                />
              ))}
            </ol>
            <div className="row-actions form-add-field">
              <SelectField
                label="New field's type"
                name="newFieldType"
                value={newType}
                onChange={setNewType}
                options={FIELD_TYPES.map((type) => ({ value: type, label: TYPE_NAMES[type] }))}
              />
              <Action onPress={() => setFields([...draft.fields, newField(newType, draft.fields)])}>Add field</Action>
            </div>
          </Section>
        </div>

        <div className="form-builder-column form-builder-settings">
          <Section title="On submission">
            <TextAreaInput
              label="Success message"
              name="settings.successMessage"
              value={draft.successMessage}
              onChange={(successMessage) => edit({ successMessage })}
              rows={2}
            />
            <TextInput
              label="Notify address"
              name="settings.notifyEmail"
              type="email"
              value={draft.notifyEmail}
              onChange={(notifyEmail) => edit({ notifyEmail })}
              description="Gets an email for every submission; empty for none."
            />
            <TextInput
              label="Sender"
              name="settings.from"
              value={draft.from}
              onChange={(from) => edit({ from })}
              placeholder="Acme <news@example.com>"
              description="Who the notification and confirmation emails come from: an address on a verified domain of the account, or Name <address>. Empty: no-reply@ the account's first verified domain."
            />
            <Toggle
              label="Store responses"
              name="settings.storeResponses"
              value={draft.storeResponses}
              onChange={(storeResponses) => edit({ storeResponses })}
            />
            <AudienceSelect value={draft.audienceId} onChange={(audienceId) => edit({ audienceId })} />
            <Toggle
              label="Double opt-in (ask the submitter to confirm by email)"
              name="settings.doubleOptIn"
              value={draft.doubleOptIn}
              onChange={(doubleOptIn) => edit({ doubleOptIn })}
            />
            <Toggle
              label="Captcha"
              name="settings.enableCaptcha"
              value={draft.enableCaptcha}
              onChange={(enableCaptcha) => edit({ enableCaptcha })}
              description="Kept with the form; no captcha is shown yet. Meanwhile the hosted page's hidden honeypot field and the submission rate limits keep bots out."
            />
          </Section>

          <Section title="Appearance">
            <div className="style-row">
              <TextInput
                label="Background colour"
                name="appearance.backgroundColor"
                value={draft.backgroundColor}
                onChange={(backgroundColor) => edit({ backgroundColor })}
                description="#rrggbb or a colour name."
              />
              <TextInput
                label="Main colour"
                name="appearance.primaryColor"
                value={draft.primaryColor}
                onChange={(primaryColor) => edit({ primaryColor })}
                description="The button's and the focus ring's."
              />
            </div>
            <TextInput label="Font" name="appearance.fontFamily" value={draft.fontFamily} onChange={(fontFamily) => edit({ fontFamily })} />
            <div className="style-row">
              <TextInput label="Button text" name="buttonCustomization.text" value={draft.buttonText} onChange={(buttonText) => edit({ buttonText })} />
              <SelectField
                label="Button style"
                name="buttonCustomization.variant"
                value={draft.buttonVariant}
                onChange={(buttonVariant) => edit({ buttonVariant })}
                options={[
                  { value: 'filled', label: 'Filled' },
                  { value: 'outline', label: 'Outline' },
                  { value: 'ghost', label: 'Ghost' },
                ]}
              />
            </div>
          </Section>

          <Toggle label="Published (the hosted page takes submissions)" value={draft.published} onChange={(published) => edit({ published })} />
          <div className="row-actions">
            <SubmitButton pending={saving}>{form === undefined ? 'Create form' : 'Save form'}</SubmitButton>
            <span role="status">{justSaved ? 'Saved' : ''}</span>
          </div>
          <FormError error={onField ? undefined : refusal} />
          {/* Beside the settings it follows from, in view while the fields are edited; its copy buttons submit nothing. */}
          {form ? <Publish form={form} /> : null}
        </div>
      </ApiForm>
    </div>
  );
}

/** The builder of a new form, or of one read from the API; one created here keeps its builder (same place, same key). */
function Loader(props: { id: string; carried: boolean; builderKey: number; onCreated: (id: string) => void }) {
  const { id } = props;
  const form = useQuery({
    queryKey: ['forms', id],
    queryFn: () => call(api.GET('/api/forms/{id}', { params: { path: { id } } })),
    enabled: id !== 'new' && !props.carried,
  });
  if (id === 'new' || props.carried) return <Builder key={props.builderKey} initial={undefined} onCreated={props.onCreated} />;
  return (
    <QueryView query={form} label="The form">
      {({ data }) => <Builder key={props.builderKey} initial={data} onCreated={props.onCreated} />}
    </QueryView>
  );
}

export default function FormBuilderPage({ params }: PageProps) {
  const id = params.id!;
  const { builderKey, carried, onCreated } = useCreatedHere(id, 'forms');
  return (
    <>
      <PageHeader title={id === 'new' || carried ? 'New form' : 'Form'}>
        {id === 'new' ? null : (
          <AppLink href={`/forms/${encodeURIComponent(id)}/submissions`} className="button button-secondary">
            Submissions
          </AppLink>
        )}
        <AppLink href="/forms" className="button button-quiet">
          All forms
        </AppLink>
      </PageHeader>
      <Loader id={id} carried={carried} builderKey={builderKey} onCreated={onCreated} />
    </>
  );
}
