/**
 * One submit path for every form: check the body with the very schema the API
 * parses it with (shared/<area>/schema.ts, so the same rule and the same
 * message), send only when it passes, and put any refusal beside the field it
 * names. The form's own state holds what the person typed, so nothing is lost.
 */
import { useMutation, useQueryClient, type QueryKey } from '@tanstack/react-query';
import { useState } from 'react';
import * as v from 'valibot';
import { toValidationError } from '#shared/platform/schema/parse.ts';
import { ApiError, asApiError } from '../api/errors.ts';

/** `events[0]` and `events` are both shown on the `events` field; RAC's Form matches errors to fields by `name`. */
function fieldName(path: string): string {
  return path.split(/[.[]/)[0]!;
}

/** The first problem the API would report for `input`, as it would word it. */
export function checkInput(schema: v.GenericSchema, input: unknown): ApiError | undefined {
  const result = v.safeParse(schema, input, { abortEarly: true });
  if (result.success) return undefined;
  const error = toValidationError(result.issues[0]);
  return new ApiError({ status: 400, code: error.code, message: error.message, field: error.details.field });
}

export interface FormSubmit<Input, Result> {
  submit(input: Input): void;
  /** Messages by field name, for `<Form validationErrors>`. */
  fieldErrors: Record<string, string>;
  /** A refusal no field of the form explains (a 409, a 429, the service down). */
  formError: ApiError | undefined;
  pending: boolean;
  result: Result | undefined;
  reset(): void;
}

/**
 * `const form = useFormSubmit({ schema: createDomainBody, fields: ['domain'], send: (body) => call(api.POST('/api/domains', { body })), invalidates: [['domains']] })`
 */
export function useFormSubmit<Input, Result>(options: {
  /** The API's request schema; checked before sending. */
  schema?: v.GenericSchema;
  /** The fields the form shows; an error on another field is shown above the form. */
  fields: readonly string[];
  send: (input: Input) => Promise<Result>;
  /** Queries to refetch once the change is made. */
  invalidates?: QueryKey[];
  onDone?: (result: Result) => void;
}): FormSubmit<Input, Result> {
  const queryClient = useQueryClient();
  const [refusal, setRefusal] = useState<ApiError | undefined>();
  const mutation = useMutation({
    mutationFn: options.send,
    // A result may hold a secret shown once (a key's, a webhook's): nothing keeps it once the form lets it go.
    gcTime: 0,
    onSuccess: async (result) => {
      await Promise.all((options.invalidates ?? []).map((queryKey) => queryClient.invalidateQueries({ queryKey })));
      options.onDone?.(result);
    },
    onError: (error) => setRefusal(asApiError(error)),
  });
  const onField = refusal?.field !== undefined && options.fields.includes(fieldName(refusal.field));
  return {
    submit(input) {
      // A second press while the first is on its way would send twice.
      if (mutation.isPending) return;
      setRefusal(undefined);
      const problem = options.schema ? checkInput(options.schema, input) : undefined;
      if (problem) setRefusal(problem);
      else mutation.mutate(input);
    },
    fieldErrors: onField ? { [fieldName(refusal!.field!)]: refusal!.message } : {},
    formError: refusal && !onField ? refusal : undefined,
    pending: mutation.isPending,
    result: mutation.data,
    reset() {
      setRefusal(undefined);
      mutation.reset();
    },
  };
}
