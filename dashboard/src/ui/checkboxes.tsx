/** Several choices from a short list (a webhook's event types), on React Aria's CheckboxGroup. */
import { useFieldError } from './fields.tsx';
import { Checkbox, CheckboxGroup } from 'react-aria-components/CheckboxGroup';
import { FieldError } from 'react-aria-components/FieldError';
import { Label } from 'react-aria-components/Label';
import { Text } from 'react-aria-components/Text';

export function CheckboxesField(props: {
  label: string;
  name: string;
  value: string[];
  onChange: (value: string[]) => void;
  options: readonly { value: string; label: string }[];
  description?: string;
}) {
  const error = useFieldError(props.name);
  return (
    <CheckboxGroup isInvalid={error.isInvalid} className="field checkboxes" name={props.name} value={props.value} onChange={props.onChange}>
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
      <FieldError className="field-error">{error.message}</FieldError>
    </CheckboxGroup>
  );
}
