/**
 * The fields of the component chosen in the list: its text or label and
 * address, its alignment and colours; and moving it up or down (the
 * keyboard's way to reorder, beside dragging in the list) or removing it.
 */
import { useRef } from 'react';
import { TEXT_ALIGNS } from '#shared/templates/schema.ts';
import { Action, TextInput } from '../../ui/fields.tsx';
import { SelectField } from '../../ui/select.tsx';
import { TYPE_NAMES, type DraftComponent } from './draft.ts';
import { TextAreaInput } from './text-area.tsx';

const VARIABLES_HINT = 'HTML allowed. Variables: {{name}}, {{name|"default"}}, {{#if name}}…{{/if}}.';
const ALIGN_OPTIONS = [{ value: '', label: 'Default' }, ...TEXT_ALIGNS.map((align) => ({ value: align, label: align[0]!.toUpperCase() + align.slice(1) }))];

export function ComponentEditor(props: {
  component: DraftComponent;
  index: number;
  count: number;
  onChange: (component: DraftComponent) => void;
  onMove: (to: number) => void;
  onRemove: () => void;
}) {
  const { component, index } = props;
  const at = `components[${index}]`;
  const name = TYPE_NAMES[component.type].toLowerCase();
  const change = (fields: Partial<DraftComponent>) => props.onChange({ ...component, ...fields });
  const style = (key: string, value: string) => change({ styles: { ...component.styles, [key]: value } });
  const styleText = (key: string) => String(component.styles[key] ?? '');
  const up = useRef<HTMLButtonElement>(null);
  const down = useRef<HTMLButtonElement>(null);
  // A move to either end disables the button just pressed: focus goes to the other rather than to the page.
  const move = (to: number) => {
    props.onMove(to);
    if (to === 0) down.current?.focus();
    else if (to === props.count - 1) up.current?.focus();
  };
  return (
    <fieldset className="component-editor" aria-describedby={`${at}-position`}>
      <legend>
        {TYPE_NAMES[component.type]} <span className="muted">(component {index + 1})</span>
      </legend>
      <p id={`${at}-position`} className="visually-hidden">
        Component {index + 1} of {props.count}
      </p>
      {component.type === 'button' ? (
        <>
          <TextInput label="Button label" name={`${at}.label`} value={component.label} onChange={(label) => change({ label })} />
          <TextInput
            label="Button address"
            name={`${at}.url`}
            value={component.url}
            onChange={(url) => change({ url })}
            description="An http(s) or mailto address, or one variable such as {{unsubscribeUrl}}."
          />
        </>
      ) : (
        <TextAreaInput
          label={component.type === 'heading' ? 'Heading text' : 'Text'}
          name={`${at}.content`}
          value={component.content}
          onChange={(content) => change({ content })}
          rows={component.type === 'heading' ? 2 : 5}
          description={VARIABLES_HINT}
        />
      )}
      <div className="style-row">
        {component.type === 'heading' ? (
          <SelectField
            label="Size"
            name={`${at}.level`}
            value={String(component.level) as '1' | '2'}
            onChange={(level) => change({ level: level === '2' ? 2 : 1 })}
            options={[
              { value: '1', label: 'Large (h1)' },
              { value: '2', label: 'Medium (h2)' },
            ]}
          />
        ) : null}
        <SelectField
          label="Alignment"
          name={`${at}.styles.textAlign`}
          value={styleText('textAlign')}
          onChange={(value) => style('textAlign', value)}
          options={ALIGN_OPTIONS}
        />
        <TextInput
          label="Text colour"
          name={`${at}.styles.color`}
          value={styleText('color')}
          onChange={(value) => style('color', value)}
          placeholder="#111827"
        />
        {component.type === 'button' ? (
          <TextInput
            label="Button colour"
            name={`${at}.styles.backgroundColor`}
            value={styleText('backgroundColor')}
            onChange={(value) => style('backgroundColor', value)}
            placeholder="#2563eb"
          />
        ) : null}
      </div>
      <div className="row-actions">
        <Action ref={up} onPress={() => move(index - 1)} isDisabled={index === 0} aria-label={`Move up: the ${name}`}>
          Move up
        </Action>
        <Action ref={down} onPress={() => move(index + 1)} isDisabled={index === props.count - 1} aria-label={`Move down: the ${name}`}>
          Move down
        </Action>
        <Action variant="danger" onPress={props.onRemove} aria-label={`Remove the ${name}`}>
          Remove
        </Action>
      </div>
    </fieldset>
  );
}
