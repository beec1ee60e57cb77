/** A single choice from a list too long for radio buttons (a status, a domain), on React Aria's Select. */
import { useFieldError } from './fields.tsx';
import { Button } from 'react-aria-components/Button';
import { FieldError } from 'react-aria-components/FieldError';
import { Label } from 'react-aria-components/Label';
import { ListBox, ListBoxItem } from 'react-aria-components/ListBox';
import { Popover } from 'react-aria-components/Popover';
import { Select, SelectValue } from 'react-aria-components/Select';
import { Text } from 'react-aria-components/Text';

export function SelectField<T extends string>(props: {
  label: string;
  name: string;
  value: T;
  onChange: (value: T) => void;
  options: readonly { value: T; label: string }[];
  description?: string;
  isDisabled?: boolean;
}) {
  const error = useFieldError(props.name);
  return (
    <Select
      isInvalid={error.isInvalid}
      className="field select"
      name={props.name}
      value={props.value}
      onChange={(key) => props.onChange(key as T)}
      isDisabled={props.isDisabled ?? false}
    >
      <Label>{props.label}</Label>
      <Button className="select-button">
        <SelectValue />
        <span aria-hidden="true" className="select-arrow">
          ▾
        </span>
      </Button>
      {props.description ? (
        <Text slot="description" className="field-description">
          {props.description}
        </Text>
      ) : null}
      <FieldError className="field-error">{error.message}</FieldError>
      <Popover className="popover">
        <ListBox className="listbox">
          {props.options.map((option) => (
            <ListBoxItem key={option.value} id={option.value} className="listbox-item">
              {option.label}
            </ListBoxItem>
          ))}
        </ListBox>
      </Popover>
    </Select>
  );
}
