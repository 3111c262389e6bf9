import { isContractDateTime } from './date-time';

describe('isContractDateTime', () => {
  it.each([
    '2026-05-01T10:00:00Z',
    '2026-05-01t10:00:00z',
    '2026-05-01T10:00:00.123Z',
    '2026-05-01T10:00:00.123456789+02:00',
    '2026-05-01T10:00:00-05:30',
    '2024-02-29T00:00:00Z',
    '1970-01-01T00:00:00Z',
    '1969-12-31T19:00:00-05:00',
    '9999-12-31T23:59:59Z',
    '9999-12-31T23:59:59.999Z',
  ])('accepts %s', (text) => {
    expect(isContractDateTime(text)).toBe(true);
  });

  it.each([
    ['no offset', '2026-05-01T10:00:00'],
    ['a space separator', '2026-05-01 10:00:00Z'],
    ['an offset without colon', '2026-05-01T10:00:00+0200'],
    ['an offset without minutes', '2026-05-01T10:00:00+02'],
    ['a date only', '2026-05-01'],
    ['February 29 of a common year', '2025-02-29T00:00:00Z'],
    ['month 13', '2026-13-01T00:00:00Z'],
    ['day 0', '2026-05-00T00:00:00Z'],
    ['April 31', '2026-04-31T00:00:00Z'],
    ['hour 24', '2026-05-01T24:00:00Z'],
    ['minute 60', '2026-05-01T10:60:00Z'],
    ['a leap second that is not 23:59:60 UTC', '2026-05-01T10:00:60Z'],
    ['a leap second (API.md §3)', '2016-12-31T23:59:60Z'],
    ['a leap second with an offset', '2017-01-01T01:29:60+01:30'],
    ['year 0001 (before 1970)', '0001-01-01T00:00:00Z'],
    ['an instant before 1970', '1969-12-31T23:59:59Z'],
    ['an instant after 9999 once the offset is applied', '9999-12-31T23:59:59-23:59'],
    ['an offset of 24 hours', '2026-05-01T10:00:00+24:00'],
    ['year 0000', '0000-01-01T00:00:00Z'],
    ['a five-digit year', '20260-05-01T00:00:00Z'],
    ['trailing text', '2026-05-01T10:00:00Zx'],
    ['an empty fraction', '2026-05-01T10:00:00.Z'],
    ['an epoch number as text', '1767225600'],
  ])('refuses %s', (_, text) => {
    expect(isContractDateTime(text)).toBe(false);
  });
});
