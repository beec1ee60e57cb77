/**
 * The fields of the component chosen in the list: its text or label and
 * address (an image's address, alt text, link and width; a divider's line; a
 * spacer's height), its alignment and colours; and moving it up or down (the
 * keyboard's way to reorder, beside dragging in the list) or removing it.
 */
import { useRef, type ReactNode } from 'react';
import { DIVIDER_MARGIN, DIVIDER_THICKNESS, IMAGE_WIDTH, SPACER_HEIGHT, TEXT_ALIGNS } from '#shared/templates/schema.ts';
import { Action, TextInput } from '../../ui/fields.tsx';
import { SelectField } from '../../ui/select.tsx';
import { TYPE_NAMES, type DraftComponent } from './draft.ts';
import { TextAreaInput } from './text-area.tsx';

const VARIABLES_HINT = 'HTML allowed. Variables: {{name}}, {{name|"default"}}, {{#if name}}…{{/if}}.';
const ALIGN_OPTIONS = [{ value: '', label: 'Default' }, ...TEXT_ALIGNS.map((align) => ({ value: align, label: align[0]!.toUpperCase() + align.slice(1) }))];

type Change = (fields: Partial<DraftComponent>) => void;

function AlignField(props: { at: string; value: string; onChange: (value: string) => void }) {
  return <SelectField label="Alignment" name={`${props.at}.styles.textAlign`} value={props.value} onChange={props.onChange} options={ALIGN_OPTIONS} />;
}

function NumberInput(props: { label: string; name: string; value: string; onChange: (value: string) => void; range: { min: number; max: number } }) {
  return (
    <TextInput
      label={props.label}
      name={props.name}
      inputMode="numeric"
      value={props.value}
      onChange={props.onChange}
      description={`${props.range.min} to ${props.range.max}.`}
    />
  );
}

/** The fields a component of this type has, by the API's names, so a refusal shows beside the one it names. */
function fieldsOf(
  component: DraftComponent,
  at: string,
  change: Change,
  style: (key: string, value: string) => void,
  styleText: (key: string) => string,
): ReactNode {
  const align = <AlignField at={at} value={styleText('textAlign')} onChange={(value) => style('textAlign', value)} />;
  const textColour = (
    <TextInput label="Text colour" name={`${at}.styles.color`} value={styleText('color')} onChange={(value) => style('color', value)} placeholder="#111827" />
  );
  switch (component.type) {
    case 'heading':
    case 'text':
      return (
        <>
          <TextAreaInput
            label={component.type === 'heading' ? 'Heading text' : 'Text'}
            name={`${at}.content`}
            value={component.content}
            onChange={(content) => change({ content })}
            rows={component.type === 'heading' ? 2 : 5}
            description={VARIABLES_HINT}
          />
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
            {align}
            {textColour}
          </div>
        </>
      );
    case 'button':
      return (
        <>
          <TextInput label="Button label" name={`${at}.label`} value={component.label} onChange={(label) => change({ label })} />
          <TextInput
            label="Button address"
            name={`${at}.url`}
            value={component.url}
            onChange={(url) => change({ url })}
            description="An http(s) or mailto address, or one variable such as {{unsubscribeUrl}}."
          />
          <div className="style-row">
            {align}
            {textColour}
            <TextInput
              label="Button colour"
              name={`${at}.styles.backgroundColor`}
              value={styleText('backgroundColor')}
              onChange={(value) => style('backgroundColor', value)}
              placeholder="#2563eb"
            />
          </div>
        </>
      );
    case 'image':
      return (
        <>
          <TextInput
            label="Image address"
            name={`${at}.url`}
            value={component.url}
            onChange={(url) => change({ url })}
            description="An https address, or one variable such as {{logoUrl}}. The preview loads no remote image: a box with its alt text stands in."
          />
          <TextInput
            label="Alt text"
            name={`${at}.alt`}
            value={component.alt}
            onChange={(alt) => change({ alt })}
            description="What the image says, for people who cannot see it and mail that hides images. Empty only for a decorative image, never with a link."
          />
          <TextInput
            label="Link address (optional)"
            name={`${at}.href`}
            value={component.href}
            onChange={(href) => change({ href })}
            description="Where a click on the image goes: an http(s) or mailto address, or one variable."
          />
          <div className="style-row">
            <NumberInput
              label="Width (px, optional)"
              name={`${at}.width`}
              value={component.width}
              onChange={(width) => change({ width })}
              range={IMAGE_WIDTH}
            />
            {align}
          </div>
        </>
      );
    case 'divider':
      return (
        <div className="style-row">
          <TextInput
            label="Line colour"
            name={`${at}.styles.color`}
            value={styleText('color')}
            onChange={(value) => style('color', value)}
            placeholder="#e5e7eb"
          />
          <NumberInput
            label="Thickness (px)"
            name={`${at}.styles.thickness`}
            value={styleText('thickness')}
            onChange={(value) => style('thickness', value)}
            range={DIVIDER_THICKNESS}
          />
          <NumberInput
            label="Space above and below (px)"
            name={`${at}.styles.margin`}
            value={styleText('margin')}
            onChange={(value) => style('margin', value)}
            range={DIVIDER_MARGIN}
          />
        </div>
      );
    case 'spacer':
      return <NumberInput label="Height (px)" name={`${at}.height`} value={component.height} onChange={(height) => change({ height })} range={SPACER_HEIGHT} />;
  }
}

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
      {fieldsOf(component, at, change, style, styleText)}
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
