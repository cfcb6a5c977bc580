import { csvCell, csvOf, CSV_COLUMNS } from './applicationsCsv';

describe('the application list as CSV', () => {
  it('when a text starts as a formula would (=, +, -, @, tab, carriage return), then it gets a leading apostrophe and stays text', () => {
    expect(csvCell('=HYPERLINK("http://x","click")')).toBe(`"'=HYPERLINK(""http://x"",""click"")"`);
    expect(csvCell('+2348012345678')).toBe("'+2348012345678");
    expect(csvCell('-1+1')).toBe("'-1+1");
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvCell('\tcmd')).toBe("'\tcmd");
  });

  it('when a text holds a comma, a quote or a line break, then it is quoted with its quotes doubled; plain text and numbers are as they are', () => {
    expect(csvCell('Okafor, Chidi')).toBe('"Okafor, Chidi"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    expect(csvCell('Adaeze Nwosu')).toBe('Adaeze Nwosu');
    expect(csvCell(450000)).toBe('450000');
    expect(csvCell(null)).toBe('');
  });

  it('when rows are written, then the header comes first and every line ends with CRLF', () => {
    const csv = csvOf([['a', 1, null]]);
    expect(csv).toBe(`${CSV_COLUMNS.join(',')}\r\na,1,\r\n`);
  });
});
