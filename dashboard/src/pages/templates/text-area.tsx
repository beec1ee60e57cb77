/** A multi-line field (a text's HTML) that shows the API's message for its `name`, as TextInput does. */
import { FieldError } from 'react-aria-components/FieldError';
import { Label } from 'react-aria-components/Label';
import { Text } from 'react-aria-components/Text';
import { TextArea } from 'react-aria-components/TextArea';
import { TextField } from 'react-aria-components/TextField';
import { useFieldError } from '../../ui/fields.tsx';

export function TextAreaInput(props: { label: string; name: string; value: string; onChange: (value: string) => void; description?: string; rows?: number }) {
  const error = useFieldError(props.name);
  return (
    <TextField isInvalid={error.isInvalid} className="field" name={props.name} value={props.value} onChange={props.onChange}>
      <Label>{props.label}</Label>
      <TextArea rows={props.rows ?? 4} />
      {props.description ? (
        <Text slot="description" className="field-description">
          {props.description}
        </Text>
      ) : null}
      <FieldError className="field-error">{error.message}</FieldError>
    </TextField>
  );
}
