/**
 * Adding addresses by hand: one per line in a text area, or read from a CSV
 * file into it (csv.ts), so the person sees and can edit what will be sent.
 * Every line is checked with the API's own address rule before sending; a
 * bad line is named by its number and nothing is sent, so nothing typed is lost.
 */
import { useId, useState } from 'react';
import * as v from 'valibot';
import { addSuppressionsBody, MAX_SUPPRESSIONS_PER_REQUEST, suppressionAddress } from '#shared/suppressions/schema.ts';
import { api, call } from '../../api/client.ts';
import { ApiError } from '../../api/errors.ts';
import { ApiForm, FormError, SubmitButton } from '../../ui/fields.tsx';
import { checkInput, useFormSubmit } from '../../ui/use-form-submit.ts';
import { addressesOfCsv } from './csv.ts';
import { AddressLines } from './address-lines.tsx';

function linesOf(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

/** The first line the API would refuse, worded by its line number. */
function badLine(lines: readonly string[]): ApiError | undefined {
  const tooMany = checkInput(addSuppressionsBody, { emails: lines });
  if (tooMany)
    return new ApiError({ status: 422, code: tooMany.code, message: `At most ${MAX_SUPPRESSIONS_PER_REQUEST} addresses at a time`, field: 'emails' });
  const index = lines.findIndex((line) => !v.safeParse(suppressionAddress, line).success);
  if (index < 0) return undefined;
  return new ApiError({ status: 422, code: 'INVALID_EMAIL', message: `Line ${index + 1} is not a valid email address: ${lines[index]}`, field: 'emails' });
}

export function AddSuppressions() {
  const [text, setText] = useState('');
  const [problem, setProblem] = useState<ApiError | undefined>();
  const [outcome, setOutcome] = useState('');
  const fileId = useId();
  const form = useFormSubmit({
    fields: ['emails'],
    send: (emails: string[]) => call(api.POST('/api/suppressions', { body: { emails } })),
    invalidates: [['suppressions']],
    onDone: ({ data }) => {
      setOutcome(`${data.added} added; ${data.already} already on the list.`);
      setText('');
    },
  });
  const errors = problem?.field ? { [problem.field]: problem.message } : form.fieldErrors;
  return (
    <ApiForm
      label="Add addresses"
      errors={errors}
      onSubmit={() => {
        const lines = linesOf(text);
        const issue = badLine(lines);
        setProblem(issue);
        setOutcome('');
        if (!issue) form.submit(lines);
      }}
    >
      <AddressLines value={text} onChange={setText} />
      <div className="field">
        <label htmlFor={fileId}>Or read them from a CSV file</label>
        <input
          id={fileId}
          type="file"
          accept=".csv,text/csv,text/plain"
          onChange={async (event) => {
            // React clears currentTarget once the handler yields: keep the input itself.
            const input = event.currentTarget;
            const file = input.files?.[0];
            if (!file) return;
            const read = addressesOfCsv(await file.text());
            setText([...linesOf(text), ...read].join('\n'));
            setOutcome(`${read.length} addresses read from ${file.name}: check them, then add.`);
            input.value = '';
          }}
        />
        <span className="field-description">Its "email" column, or its first: the addresses are put in the box above.</span>
      </div>
      <SubmitButton pending={form.pending}>Add to the list</SubmitButton>
      <FormError error={problem ? undefined : form.formError} />
      <p role="status">{outcome}</p>
    </ApiForm>
  );
}
