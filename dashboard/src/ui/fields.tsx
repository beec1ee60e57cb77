/**
 * The form parts every page uses, on React Aria Components: labels tied to
 * inputs, errors announced and tied by aria-describedby, focus rings only for
 * the keyboard. Each field shows the message the API (or the same check before
 * sending) gives for its `name`.
 */

/**
 * The messages of the last submission by field name. Held until the next one,
 * not cleared as the person edits: a message vanishing on blur moves the
 * button being clicked from under the pointer, and the click is lost.
 */
const FieldErrors = createContext<Record<string, string>>({});

export function useFieldError(name: string): { isInvalid: boolean; message: string | undefined } {
  const message = useContext(FieldErrors)[name];
  return { isInvalid: message !== undefined, message };
}
import { createContext, useContext, type ReactNode, type RefAttributes } from 'react';
import { Button, type ButtonProps } from 'react-aria-components/Button';
import { Form } from 'react-aria-components/Form';
import { FieldError } from 'react-aria-components/FieldError';
import { Input } from 'react-aria-components/Input';
import { Label } from 'react-aria-components/Label';
import { Radio, RadioGroup } from 'react-aria-components/RadioGroup';
import { Text } from 'react-aria-components/Text';
import { TextField } from 'react-aria-components/TextField';
import { describeError, type ApiError } from '../api/errors.ts';

export function TextInput(props: {
  label: string;
  name: string;
  value: string;
  onChange: (value: string) => void;
  type?: 'text' | 'email' | 'url' | 'search' | 'date';
  description?: string;
  isRequired?: boolean;
  autoComplete?: string;
  autoFocus?: boolean;
  inputMode?: 'numeric' | 'email' | 'url' | 'text';
  placeholder?: string;
  maxLength?: number;
}) {
  const error = useFieldError(props.name);
  return (
    <TextField
      isInvalid={error.isInvalid}
      className="field"
      name={props.name}
      value={props.value}
      onChange={props.onChange}
      type={props.type ?? 'text'}
      isRequired={props.isRequired ?? false}
      {...(props.autoComplete ? { autoComplete: props.autoComplete } : {})}
      {...(props.autoFocus ? { autoFocus: true } : {})}
      {...(props.inputMode ? { inputMode: props.inputMode } : {})}
      {...(props.maxLength ? { maxLength: props.maxLength } : {})}
    >
      <Label>{props.label}</Label>
      <Input {...(props.placeholder ? { placeholder: props.placeholder } : {})} />
      {props.description ? (
        <Text slot="description" className="field-description">
          {props.description}
        </Text>
      ) : null}
      <FieldError className="field-error">{error.message}</FieldError>
    </TextField>
  );
}

export function Choice<T extends string>(props: {
  label: string;
  name: string;
  value: T;
  onChange: (value: T) => void;
  options: readonly { value: T; label: string; description?: string }[];
}) {
  const error = useFieldError(props.name);
  return (
    <RadioGroup isInvalid={error.isInvalid} className="field choice" name={props.name} value={props.value} onChange={(value) => props.onChange(value as T)}>
      <Label>{props.label}</Label>
      <div className="choice-options">
        {props.options.map((option) => (
          <Radio key={option.value} value={option.value} className="choice-option">
            <span className="choice-label">{option.label}</span>
            {option.description ? <span className="choice-description">{option.description}</span> : null}
          </Radio>
        ))}
      </div>
      <FieldError className="field-error">{error.message}</FieldError>
    </RadioGroup>
  );
}

/**
 * A button. `busy` ignores presses while its action runs, without React Aria's
 * `isPending`, whose announcement outlives a button that the action removes
 * (a form that gives way to its result), leaving a live region that names
 * nothing.
 */
export function Action({
  variant = 'secondary',
  className,
  busy = false,
  onPress,
  ...props
}: ButtonProps & RefAttributes<HTMLButtonElement> & { variant?: 'primary' | 'secondary' | 'danger' | 'quiet'; busy?: boolean }) {
  return (
    <Button
      {...props}
      {...(onPress ? { onPress: busy ? () => undefined : onPress } : {})}
      data-busy={busy || undefined}
      className={`button button-${variant}${className ? ` ${className}` : ''}`}
    />
  );
}

export function SubmitButton({ pending, children }: { pending: boolean; children: ReactNode }) {
  return (
    <Action type="submit" variant="primary" busy={pending}>
      {pending ? 'Working…' : children}
    </Action>
  );
}

/** A refusal that belongs to no field: the API's message, and when to retry after a 429. */
export function FormError({ error }: { error: ApiError | undefined }) {
  if (!error) return null;
  return (
    <p className="notice notice-error" role="alert">
      {describeError(error)}
    </p>
  );
}

/**
 * A form whose fields show the messages the API gives (or the same check
 * gives before sending) beside them: the browser's own validation bubbles are
 * off, since they word things differently and check less than the API does.
 */
export function ApiForm(props: { label: string; errors: Record<string, string>; onSubmit: () => void; className?: string; children: ReactNode }) {
  return (
    <Form
      className={props.className ?? 'form'}
      aria-label={props.label}
      validationBehavior="aria"
      onSubmit={(event) => {
        event.preventDefault();
        props.onSubmit();
      }}
    >
      <FieldErrors.Provider value={props.errors}>{props.children}</FieldErrors.Provider>
    </Form>
  );
}
