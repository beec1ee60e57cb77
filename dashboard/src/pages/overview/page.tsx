/**
 * The Overview: this month's sending against the quota, the last 30 days as a
 * chart, the bounce and complaint rates beside the limits mailbox providers
 * and SES hold senders to (a warning when one is crossed), and the latest
 * emails. Two API calls besides the session the shell already holds: the
 * statistics (this month's usage of the quota included) and the latest emails.
 */
import { useQuery } from '@tanstack/react-query';
import { AppLink } from '../../ui/app-link.tsx';
import { api, call } from '../../api/client.ts';
import { Empty, PageHeader, QueryView, Section } from '../../ui/page.tsx';
import { EmailTable } from '../emails/email-table.tsx';
import { ActivityChart, type Day } from './chart.tsx';
import { DayTable } from './day-table.tsx';
import { QuotaCard } from './quota.tsx';
import { Rates } from './rates.tsx';

const CHART_DAYS = 30;

/** `YYYY-MM-DD` of a UTC day; the API counts per UTC day. */
function utcDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/** The chart's 30 UTC days, today included: the month's usage comes with them whatever the range. */
function statsRange(now: Date): { startDate: string; endDate: string } {
  return { startDate: utcDay(new Date(now.getTime() - (CHART_DAYS - 1) * 86_400_000)), endDate: utcDay(now) };
}

function summaryOf(days: readonly Day[]): string {
  const total = (key: keyof Omit<Day, 'date'>) => days.reduce((sum, day) => sum + day[key], 0);
  return `Emails per day over the last ${days.length} days: ${total('sent')} sent, ${total('delivered')} delivered, ${total('bounced')} bounced, ${total('complained')} complained, ${total('opened')} opened, ${total('clicked')} clicked. The table below has each day.`;
}

export default function OverviewPage() {
  const range = statsRange(new Date());
  const stats = useQuery({
    queryKey: ['stats', range.startDate, range.endDate],
    queryFn: () => call(api.GET('/api/stats', { params: { query: { startDate: range.startDate, endDate: range.endDate } } })),
  });
  const latest = useQuery({ queryKey: ['emails', 'latest'], queryFn: () => call(api.GET('/api/emails', { params: { query: { limit: '5' } } })) });
  return (
    <>
      <PageHeader title="Overview" />
      <QueryView query={stats} label="Statistics">
        {({ data }) => (
          <>
            <div className="cards">
              <QuotaCard usage={data.usage} />
              <Rates rates={data.rates} totals={data.totals} />
            </div>
            <Section title="Last 30 days">
              <ActivityChart days={data.days} summary={summaryOf(data.days)} />
              <DayTable days={data.days} />
            </Section>
          </>
        )}
      </QueryView>
      <Section
        title="Latest emails"
        actions={
          <AppLink href="/emails" className="button button-quiet">
            All emails
          </AppLink>
        }
      >
        <QueryView query={latest} label="Latest emails">
          {({ emails }) => (emails.length === 0 ? <Empty>No email sent yet.</Empty> : <EmailTable emails={emails} caption="The latest emails" />)}
        </QueryView>
      </Section>
    </>
  );
}
