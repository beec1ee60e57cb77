/** The chart's numbers as a table, behind a disclosure: what a screen reader reads, and anyone who wants exact counts. */
import { SERIES, type Day } from './chart.tsx';
import { TableScroll } from '../../ui/page.tsx';

export function DayTable({ days }: { days: readonly Day[] }) {
  return (
    <details className="day-table">
      <summary>Show the days as a table</summary>
      <TableScroll label="Emails per day">
        <table className="table table-numbers">
          <caption className="visually-hidden">Emails per day</caption>
          <thead>
            <tr>
              <th scope="col">Day (UTC)</th>
              {SERIES.map((series) => (
                <th key={series.key} scope="col">
                  {series.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {[...days].reverse().map((day) => (
              <tr key={day.date}>
                <th scope="row">{day.date}</th>
                {SERIES.map((series) => (
                  <td key={series.key}>{day[series.key]}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
    </details>
  );
}
