const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;
const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const LATEST = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/**
 * The contract's `date-time` (API.md §3), the `format` of every date-time the gateway and the
 * services check: RFC 3339 §5.6 strictly (`T` between date and time, an offset that is `Z` or
 * `±hh:mm`; ajv-formats also takes a space and `+hhmm`) and an instant from
 * 1970-01-01T00:00:00Z to 9999-12-31T23:59:59Z once the offset is applied, without a leap
 * second, so that every service stores and writes it back the same.
 */
export function isContractDateTime(text: string): boolean {
  const match = DATE_TIME.exec(text);
  if (!match) return false;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number);
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  if (month < 1 || month > 12 || day < 1 || day > (month === 2 && leap ? 29 : DAYS[month - 1])) return false;
  const offset = match[8] === undefined ? 0 : (match[8] === '-' ? -1 : 1) * (Number(match[9]) * 60 + Number(match[10]));
  if (hour > 23 || minute > 59 || second > 59 || Number(match[9] ?? 0) > 23 || Number(match[10] ?? 0) > 59 || year < 1969) return false;
  const instant = Date.UTC(year, month - 1, day, hour, minute, second, Math.floor(Number(match[7] ?? 0) * 1000)) - offset * 60_000;
  return instant >= 0 && instant <= LATEST;
}
