/**
 * Sending a draft: now (after a confirmation), or at a date and time in the
 * person's own time zone, shown beside the field and converted to the UTC
 * instant the API takes.
 */
import { getLocalTimeZone, now, type ZonedDateTime } from '@internationalized/date';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Button } from 'react-aria-components/Button';
import { Calendar, CalendarCell, CalendarGrid } from 'react-aria-components/Calendar';
import { DateInput, DateSegment } from 'react-aria-components/DateField';
import { DatePicker } from 'react-aria-components/DatePicker';
import { Dialog } from 'react-aria-components/Dialog';
import { FieldError } from 'react-aria-components/FieldError';
import { Group } from 'react-aria-components/Group';
import { Heading } from 'react-aria-components/Heading';
import { Label } from 'react-aria-components/Label';
import { Popover } from 'react-aria-components/Popover';
import { Text } from 'react-aria-components/Text';
import * as v from 'valibot';
import { sendBroadcastBody } from '#shared/broadcasts/schema.ts';
import { api, call } from '../../api/client.ts';
import { ConfirmAction } from '../../ui/confirm.tsx';
import { ApiForm, FormError, SubmitButton, useFieldError } from '../../ui/fields.tsx';
import { useFormSubmit } from '../../ui/use-form-submit.ts';
import type { Broadcast } from './status.tsx';

function When({ value, onChange, zone }: { value: ZonedDateTime | null; onChange: (value: ZonedDateTime | null) => void; zone: string }) {
  const error = useFieldError('scheduledAt');
  return (
    <DatePicker
      className="field date-picker"
      name="scheduledAt"
      value={value}
      onChange={onChange}
      granularity="minute"
      hideTimeZone
      minValue={now(zone)}
      isInvalid={error.isInvalid}
    >
      <Label>Date and time</Label>
      <Group className="date-group">
        <DateInput className="date-input">{(segment) => <DateSegment segment={segment} className="date-segment" />}</DateInput>
        <Button className="button button-quiet date-button" aria-label="Open the calendar">
          ▾
        </Button>
      </Group>
      <Text slot="description" className="field-description">
        In your time zone, {zone}; at most 30 days ahead.
      </Text>
      <FieldError className="field-error">{error.message}</FieldError>
      <Popover className="popover">
        <Dialog className="calendar-dialog" aria-label="Calendar">
          <Calendar className="calendar">
            <header className="calendar-header">
              <Button slot="previous" className="button button-quiet" aria-label="Previous month">
                ◀
              </Button>
              <Heading className="calendar-heading" />
              <Button slot="next" className="button button-quiet" aria-label="Next month">
                ▶
              </Button>
            </header>
            <CalendarGrid className="calendar-grid">{(date) => <CalendarCell date={date} className="calendar-cell" />}</CalendarGrid>
          </Calendar>
        </Dialog>
      </Popover>
    </DatePicker>
  );
}

export function SendOrSchedule({ broadcast }: { broadcast: Broadcast }) {
  const zone = getLocalTimeZone();
  const [at, setAt] = useState<ZonedDateTime | null>(null);
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['broadcasts'] });
  const path = { id: broadcast.id };
  const schedule = useFormSubmit({
    // The API's body, with the time required: without one, send would send now.
    schema: v.pipe(
      v.object({ scheduledAt: v.string('is required: choose a date and time') }),
      v.check((body) => v.safeParse(sendBroadcastBody, body).success),
    ),
    fields: ['scheduledAt'],
    send: (body: { scheduledAt?: string }) => call(api.POST('/api/broadcasts/{id}/send', { params: { path }, body })),
    invalidates: [['broadcasts']],
  });
  return (
    <div className="send-or-schedule">
      <div>
        <h3>Send now</h3>
        <ConfirmAction
          label="Send now"
          title={`Send ${broadcast.name} now?`}
          confirmLabel="Send"
          onConfirm={async () => {
            await call(api.POST('/api/broadcasts/{id}/send', { params: { path }, body: {} }));
            await refresh();
          }}
        >
          <p>It goes to every subscribed contact of its audience and segment, minus the suppression list. What is sent cannot be taken back.</p>
        </ConfirmAction>
      </div>
      <ApiForm
        label="Schedule the broadcast"
        errors={schedule.fieldErrors}
        onSubmit={() => schedule.submit(at ? { scheduledAt: at.toDate().toISOString() } : {})}
      >
        <h3>Schedule</h3>
        <When value={at} onChange={setAt} zone={zone} />
        <SubmitButton pending={schedule.pending}>Schedule</SubmitButton>
        <FormError error={schedule.formError} />
      </ApiForm>
    </div>
  );
}
