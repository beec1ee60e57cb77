/**
 * One field of the form in the builder: its key, label, placeholder,
 * required flag and (for select, checkboxes and radio buttons) its options,
 * one a line; moved up or down, or removed, by its own buttons.
 */
import { Switch } from 'react-aria-components/Switch';
import { Action, TextInput } from '../../ui/fields.tsx';
import { TextAreaInput } from '../templates/text-area.tsx';
import { isChoice, TYPE_NAMES, type DraftField } from './draft.ts';

export function FieldEditor(props: {
  field: DraftField;
  index: number;
  count: number;
  onChange: (field: DraftField) => void;
  onMove: (to: number) => void;
  onRemove: () => void;
}) {
  const { field, index } = props;
  const name = (key: string) => `fields[${index}].${key}`;
  const change = (part: Partial<DraftField>) => props.onChange({ ...field, ...part });
  const named = field.label.trim() || TYPE_NAMES[field.type];
  return (
    <li className="form-field-editor">
      <div className="section-header">
        <h3>
          {index + 1}. {TYPE_NAMES[field.type]}
        </h3>
        <div className="row-actions">
          <Action variant="quiet" isDisabled={index === 0} onPress={() => props.onMove(index - 1)} aria-label={`Move up: ${named}`}>
            Move up
          </Action>
          <Action variant="quiet" isDisabled={index === props.count - 1} onPress={() => props.onMove(index + 1)} aria-label={`Move down: ${named}`}>
            Move down
          </Action>
          <Action variant="danger" isDisabled={props.count === 1} onPress={props.onRemove} aria-label={`Remove: ${named}`}>
            Remove
          </Action>
        </div>
      </div>
      <div className="style-row">
        <TextInput label="Label" name={name('label')} value={field.label} onChange={(label) => change({ label })} isRequired />
        <TextInput
          label="Key"
          name={name('id')}
          value={field.id}
          onChange={(id) => change({ id })}
          isRequired
          description="The name of the value in a submission and in the CSV: a letter, then letters, digits, _ or -."
        />
      </div>
      {isChoice(field.type) ? (
        <TextAreaInput
          label="Options"
          name={name('options')}
          value={field.options}
          onChange={(options) => change({ options })}
          description="One a line, 1 to 50, each different: what is shown is what is stored."
          rows={4}
        />
      ) : (
        <TextInput label="Placeholder" name={name('placeholder')} value={field.placeholder} onChange={(placeholder) => change({ placeholder })} />
      )}
      <Switch className="switch" isSelected={field.required} onChange={(required) => change({ required })}>
        <span className="switch-track" aria-hidden="true" />
        Required
      </Switch>
    </li>
  );
}
