/**
 * The addresses of a CSV file, for the suppression list's "add from a file".
 * No CSV library is installed in the dashboard, and one column of addresses
 * needs only RFC 4180's quoting rules, so this small reader does: fields
 * split on commas (or semicolons, as spreadsheets in many locales save
 * them), quoted fields with doubled quotes and line breaks inside. The
 * column named "email" (or "e-mail", "email address") is read when a header
 * names one; otherwise the first column, and a first row with no address in
 * it is taken for a header.
 */

/** Every row of `text` as its fields. */
export function csvRows(text: string): string[][] {
  const delimiter = firstLineHas(text, ';') && !firstLineHas(text, ',') ? ';' : ',';
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let index = 0; index < text.length; index++) {
    const char = text[index]!;
    if (quoted) {
      if (char === '"' && text[index + 1] === '"') {
        field += '"';
        index++;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"' && field === '') quoted = true;
    else if (char === delimiter) {
      row.push(field);
      field = '';
    } else if (char === '\n' || char === '\r') {
      if (char === '\r' && text[index + 1] === '\n') index++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += char;
  }
  if (field !== '' || row.length > 0) rows.push([...row, field]);
  return rows.filter((fields) => fields.some((value) => value.trim() !== ''));
}

function firstLineHas(text: string, char: string): boolean {
  return (text.split(/\r?\n/, 1)[0] ?? '').includes(char);
}

const EMAIL_HEADER = /^\s*e-?mail(\s*address)?\s*$/i;

/** The addresses of the file's email column (or its first), trimmed, without its header. */
export function addressesOfCsv(text: string): string[] {
  const rows = csvRows(text.replace(/^\uFEFF/, ''));
  const header = rows[0] ?? [];
  const named = header.findIndex((cell) => EMAIL_HEADER.test(cell));
  const column = Math.max(named, 0);
  const body = named >= 0 || !(header[0] ?? '').includes('@') ? rows.slice(1) : rows;
  return body.map((fields) => (fields[column] ?? '').trim()).filter((value) => value !== '');
}
