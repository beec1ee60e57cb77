/** The text area of addresses, one per line, with the message of the `emails` field beside it. */
import { FieldError } from 'react-aria-components/FieldError';
import { Label } from 'react-aria-components/Label';
import { Text } from 'react-aria-components/Text';
import { TextArea } from 'react-aria-components/TextArea';
import { TextField } from 'react-aria-components/TextField';
import { useFieldError } from '../../ui/fields.tsx';

export function AddressLines({ value, onChange }: { value: string; onChange: (value: string) => void }) {
  const error = useFieldError('emails');
  return (
    <TextField isInvalid={error.isInvalid} className="field" name="emails" value={value} onChange={onChange}>
      <Label>Addresses, one per line</Label>
      <TextArea rows={5} spellCheck={false} autoCapitalize="off" placeholder={'ann@example.com\nbob@example.org'} />
      <Text slot="description" className="field-description">
        Nothing is sent to them any more, codes and receipts included. Up to 1,000 at a time.
      </Text>
      <FieldError className="field-error">{error.message}</FieldError>
    </TextField>
  );
}
