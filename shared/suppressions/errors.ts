import { ConflictError } from '#shared/platform/errors.ts';

/** A complaint is lifted only when the caller says so in the request (docs/suppressions.md, "Lifting a complaint"). */
export const complaintConfirmationRequired = () =>
  new ConflictError(
    'COMPLAINT_CONFIRMATION_REQUIRED',
    'This address reported your mail as spam; lifting it risks your sending reputation. Repeat the request with ?confirm=complaint to lift it anyway',
    { field: 'confirm' },
  );
