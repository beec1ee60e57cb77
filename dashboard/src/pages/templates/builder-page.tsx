/**
 * A template's builder (/templates/new, /templates/:id): name and subject,
 * the components in order (add, edit, reorder by dragging or by keyboard,
 * remove), the page's styles; the variables it reads with sample values; a
 * live preview; save; a test sent to oneself. Everything typed stays on
 * screen whatever the API answers; a refusal shows beside the field it names.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { COMPONENT_TYPES, createTemplateBody, TEMPLATE_PADDING, TEMPLATE_WIDTH, updateTemplateBody } from '#shared/templates/schema.ts';
import { api, call } from '../../api/client.ts';
import { asApiError, type ApiError } from '../../api/errors.ts';
import type { PageProps } from '../../routes.tsx';
import { AppLink } from '../../ui/app-link.tsx';
import { Action, ApiForm, FormError, SubmitButton, TextInput } from '../../ui/fields.tsx';
import { PageHeader, QueryView, Section } from '../../ui/page.tsx';
import { checkInput } from '../../ui/use-form-submit.ts';
import { ComponentEditor } from './component-editor.tsx';
import { ComponentList } from './component-list.tsx';
import { draftOf, EMPTY_DRAFT, moved, newComponent, templateBody, TYPE_NAMES, type ComponentType, type Draft, type Template } from './draft.ts';
import { Preview, useRenderedDraft } from './preview.tsx';
import { TestSend } from './test-send.tsx';
import { useCreatedHere } from '../../ui/use-created-here.ts';

/** The fields the builder shows, by the API's `field` path; a refusal naming another is shown above the form. */
const SHOWN_FIELD =
  /^(?:name|subject|styles\.(?:backgroundColor|width|padding)|components\[\d+\]\.(?:content|label|url|alt|href|width|height|level|styles\.(?:textAlign|color|backgroundColor|thickness|margin)))$/;
const COMPONENT_FIELD = /^components\[(\d+)\]\./;

function Variables(props: { names: readonly string[]; samples: Record<string, string>; onChange: (samples: Record<string, string>) => void }) {
  if (props.names.length === 0) {
    return <p className="muted">This template reads no variables yet. Write {'{{firstName}}'} in the subject or a component to add one.</p>;
  }
  return (
    <div className="variables">
      {props.names.map((name) => (
        <TextInput
          key={name}
          label={name}
          name={`variables.${name}`}
          value={props.samples[name] ?? ''}
          onChange={(value) => props.onChange({ ...props.samples, [name]: value })}
        />
      ))}
    </div>
  );
}

function Builder(props: { initial: Template | undefined; onCreated: (id: string) => void }) {
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState<Draft>(() => (props.initial ? draftOf(props.initial) : EMPTY_DRAFT));
  const [templateId, setTemplateId] = useState(props.initial?.id);
  const [saved, setSaved] = useState(() => (props.initial ? JSON.stringify(templateBody(draftOf(props.initial))) : undefined));
  const [selected, setSelected] = useState(draft.components[0]?.id);
  const [samples, setSamples] = useState<Record<string, string>>({});
  const [refusal, setRefusal] = useState<ApiError>();
  const [saving, setSaving] = useState(false);
  const [justSaved, setJustSaved] = useState(false);

  const rendered = useRenderedDraft(draft, samples);
  const variables = rendered.data?.variables ?? [];
  const dirty = JSON.stringify(templateBody(draft)) !== saved;

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
  const setComponents = (components: Draft['components']) => edit({ components });

  // A refusal on a component opens that component, so its field (and the message beside it) is on screen.
  useEffect(() => {
    const index = refusal?.field ? COMPONENT_FIELD.exec(refusal.field)?.[1] : undefined;
    const component = index === undefined ? undefined : draft.components[Number(index)];
    if (component) setSelected(component.id);
  }, [refusal, draft.components]);

  async function save(): Promise<string | undefined> {
    const body = templateBody(draft);
    const json = JSON.stringify(body);
    if (templateId !== undefined && json === saved) return templateId;
    setRefusal(undefined);
    const problem = checkInput(templateId === undefined ? createTemplateBody : updateTemplateBody, body);
    if (problem) {
      setRefusal(problem);
      return undefined;
    }
    setSaving(true);
    try {
      const { data } =
        templateId === undefined
          ? await call(api.POST('/api/templates', { body: body as never }))
          : await call(api.PATCH('/api/templates/{id}', { params: { path: { id: templateId } }, body: body as never }));
      setSaved(json);
      setJustSaved(true);
      queryClient.setQueryData(['templates', data.id], { success: true, data });
      void queryClient.invalidateQueries({ queryKey: ['templates', 'list'] });
      if (templateId === undefined) {
        setTemplateId(data.id);
        props.onCreated(data.id);
      }
      return data.id;
    } catch (error) {
      setRefusal(asApiError(error));
      return undefined;
    } finally {
      setSaving(false);
    }
  }

  const add = (type: ComponentType) => {
    const component = newComponent(type);
    const at = draft.components.findIndex((item) => item.id === selected);
    const components = [...draft.components];
    components.splice(at === -1 ? components.length : at + 1, 0, component);
    setComponents(components);
    setSelected(component.id);
  };

  const selectedIndex = draft.components.findIndex((component) => component.id === selected);
  const current = draft.components[selectedIndex];
  const onField = refusal?.field !== undefined && SHOWN_FIELD.test(refusal.field);
  const errors = onField ? { [refusal!.field!]: refusal!.message } : {};

  return (
    <div className="builder">
      <div className="builder-edit">
        <ApiForm label="Template" errors={errors} onSubmit={() => void save()}>
          <TextInput
            label="Name"
            name="name"
            value={draft.name}
            onChange={(name) => edit({ name })}
            isRequired
            description="For you and your team; recipients never see it."
          />
          <TextInput
            label="Subject"
            name="subject"
            value={draft.subject}
            onChange={(subject) => edit({ subject })}
            isRequired
            description={'Variables: {{name}}, {{name|"default"}}, {{#if name}}…{{/if}}; built-ins: {{currentYear}}, {{currentDate}}.'}
          />

          <Section title="Components">
            <div className="row-actions">
              {COMPONENT_TYPES.map((type) => (
                <Action key={type} onPress={() => add(type)}>
                  Add {TYPE_NAMES[type].toLowerCase()}
                </Action>
              ))}
            </div>
            {draft.components.length === 0 ? (
              <p className="muted">No component yet: add a heading, a text, a button, an image, a divider or a spacer.</p>
            ) : (
              <ComponentList
                components={draft.components}
                selected={selected}
                onSelect={setSelected}
                onReorder={(ids, target, position) => {
                  const moving = draft.components.filter((component) => ids.includes(component.id));
                  const rest = draft.components.filter((component) => !ids.includes(component.id));
                  const at = rest.findIndex((component) => component.id === target) + (position === 'after' ? 1 : 0);
                  setComponents([...rest.slice(0, at), ...moving, ...rest.slice(at)]);
                }}
              />
            )}
            {current ? (
              <ComponentEditor
                key={current.id}
                component={current}
                index={selectedIndex}
                count={draft.components.length}
                onChange={(component) => setComponents(draft.components.map((item) => (item.id === component.id ? component : item)))}
                onMove={(to) => setComponents(moved(draft.components, selectedIndex, to))}
                onRemove={() => {
                  const components = draft.components.filter((item) => item.id !== current.id);
                  setComponents(components);
                  setSelected(components[Math.min(selectedIndex, components.length - 1)]?.id);
                }}
              />
            ) : null}
          </Section>

          <Section title="Page style">
            <div className="style-row">
              <TextInput
                label="Background colour"
                name="styles.backgroundColor"
                value={draft.styles.backgroundColor}
                onChange={(backgroundColor) => edit({ styles: { ...draft.styles, backgroundColor } })}
                description="#rgb, #rrggbb, rgb(r, g, b) or a colour name."
              />
              <TextInput
                label="Width (px)"
                name="styles.width"
                inputMode="numeric"
                value={draft.styles.width}
                onChange={(width) => edit({ styles: { ...draft.styles, width } })}
                description={`${TEMPLATE_WIDTH.min} to ${TEMPLATE_WIDTH.max}; phones show the full screen width.`}
              />
              <TextInput
                label="Padding (px)"
                name="styles.padding"
                inputMode="numeric"
                value={draft.styles.padding}
                onChange={(padding) => edit({ styles: { ...draft.styles, padding } })}
                description={`${TEMPLATE_PADDING.min} to ${TEMPLATE_PADDING.max}, around the content.`}
              />
            </div>
          </Section>

          <div className="save-bar">
            <SubmitButton pending={saving}>{templateId === undefined ? 'Create template' : 'Save changes'}</SubmitButton>
            <span role="status" className="muted">
              {dirty ? 'Unsaved changes' : justSaved ? 'Saved' : ''}
            </span>
          </div>
          <FormError error={onField ? undefined : refusal} />
        </ApiForm>

        <Section title="Send a test">
          <TestSend samples={samples} save={save} />
        </Section>
      </div>

      <div className="builder-preview">
        <Section title="Variables">
          <Variables names={variables} samples={samples} onChange={setSamples} />
        </Section>
        <Section title="Preview">
          <Preview rendered={rendered} />
        </Section>
      </div>
    </div>
  );
}

/** The builder of a new template, or of one read from the API; one created here keeps its builder (same place, same key). */
function Loader(props: { id: string; carried: boolean; builderKey: number; onCreated: (id: string) => void }) {
  const { id } = props;
  const template = useQuery({
    queryKey: ['templates', id],
    queryFn: () => call(api.GET('/api/templates/{id}', { params: { path: { id } } })),
    enabled: id !== 'new' && !props.carried,
  });
  if (id === 'new' || props.carried) return <Builder key={props.builderKey} initial={undefined} onCreated={props.onCreated} />;
  return (
    <QueryView query={template} label="The template">
      {({ data }) => <Builder key={props.builderKey} initial={data} onCreated={props.onCreated} />}
    </QueryView>
  );
}

export default function TemplateBuilderPage({ params }: PageProps) {
  const id = params.id!;
  const { builderKey, carried, onCreated } = useCreatedHere(id, 'templates');
  return (
    <>
      <PageHeader title={id === 'new' || carried ? 'New template' : 'Template'}>
        <AppLink href="/templates" className="button button-quiet">
          All templates
        </AppLink>
      </PageHeader>
      <Loader id={id} carried={carried} builderKey={builderKey} onCreated={onCreated} />
    </>
  );
}
