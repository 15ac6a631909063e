/**
 * Business time: days are Monday to Friday, hours 09:00–17:00 UTC. Personas reply "two business days later" on this
 * calendar; pure functions, safe in workflow code.
 */
const dayMs = 86_400_000;
const openHour = 9;
const closeHour = 17;

const isWeekend = (date: Date): boolean => date.getUTCDay() === 0 || date.getUTCDay() === 6;

/** The next moment the office is open, from `ms` (itself when it is open). */
export const nextOpen = (ms: number): number => {
  const date = new Date(ms);
  for (;;) {
    if (!isWeekend(date)) {
      if (date.getUTCHours() < openHour) {
        date.setUTCHours(openHour, 0, 0, 0);
        return date.getTime();
      }
      if (date.getUTCHours() < closeHour) {
        return date.getTime();
      }
    }
    date.setUTCDate(date.getUTCDate() + 1);
    date.setUTCHours(openHour, 0, 0, 0);
  }
};

/** `days` business days after `ms` (fractions are hours of the 8-hour day), landing inside office hours. */
export const addBusinessDays = (ms: number, days: number): number => {
  let at = nextOpen(ms);
  const whole = Math.floor(days);
  for (let i = 0; i < whole; i++) {
    at = nextOpen(at + dayMs);
  }
  return addBusinessHours(at, (days - whole) * (closeHour - openHour));
};

/**
 * The close of the business day `days` business days after `ms`: a deadline of "within N business days" is met by
 * anything done on day N, up to its end, not only up to the hour the count started at.
 */
export const endOfBusinessDays = (ms: number, days: number): number => {
  // addBusinessDays lands inside office hours of a weekday, 17:00 included: that day's close is the deadline.
  const day = new Date(addBusinessDays(ms, days));
  return Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate(), closeHour);
};

/** `hours` of office time after `ms`, carried over evenings and weekends. */
export const addBusinessHours = (ms: number, hours: number): number => {
  let at = nextOpen(ms);
  let left = hours * 3_600_000;
  while (left > 0) {
    const date = new Date(at);
    const close = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate(), closeHour);
    const step = Math.min(left, close - at);
    left -= step;
    at = left > 0 ? nextOpen(close) : at + step;
  }
  return at;
};

/** Business days between two moments (whole office days passed, plus the fraction of the last). */
export const businessDaysBetween = (from: number, to: number): number => {
  let days = 0;
  let at = from;
  while (addBusinessDays(at, 1) <= to) {
    at = addBusinessDays(at, 1);
    days++;
  }
  return days;
};
