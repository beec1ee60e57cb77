/** Several choices from a short list (a webhook's event types), on React Aria's CheckboxGroup. */
import { Checkbox, CheckboxGroup, FieldError, Label, Text } from 'react-aria-components';

export function CheckboxesField(props: {
  label: string;
  name: string;
  value: string[];
  onChange: (value: string[]) => void;
  options: readonly { value: string; label: string }[];
  description?: string;
}) {
  return (
    <CheckboxGroup className="field checkboxes" name={props.name} value={props.value} onChange={props.onChange}>
      <Label>{props.label}</Label>
      {props.description ? (
        <Text slot="description" className="field-description">
          {props.description}
        </Text>
      ) : null}
      <div className="checkbox-options">
        {props.options.map((option) => (
          <Checkbox key={option.value} value={option.value} className="checkbox">
            <span className="checkbox-box" aria-hidden="true" />
            {option.label}
          </Checkbox>
        ))}
      </div>
      <FieldError className="field-error" />
    </CheckboxGroup>
  );
}
