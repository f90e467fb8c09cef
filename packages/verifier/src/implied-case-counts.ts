import type { AskedCases } from './asked-case-counts';

/**
 * Tables asked to cover a set everyone knows the size of, with no count given ("map the HTTP
 * status codes to their reason phrases", "a lookup of every weekday", "the months to their
 * abbreviations"). The set gives the count: at least this many entries, whatever the request's
 * example. A set of no fixed size (status codes) gives a floor an honest table clears easily.
 */

/** A well-known set: how the request names it (plural, or after every/each/all) and its least size. */
interface KnownSet {
  name: RegExp;
  count: number;
  why: string;
  /** A key or value that belongs to the set (a table of other things is not the one asked). */
  member: RegExp;
}

const DAY = /^(?:mon|tue|wed|thu|fri|sat|sun)/i;
const MONTH = /^(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)/i;

const QUANTIFIED = String.raw`(?:every|each|all(?:\s+(?:of\s+)?the)?|the)\s+`;
/** Before a singular: "every weekday", "each month". */
const EACH = String.raw`(?:every|each)\s+`;

const KNOWN_SETS: readonly KnownSet[] = [
  // "Weekdays" may mean Monday to Friday: five, however the table is drawn.
  { name: /\bdays\s+of\s+the\s+week\b/i, count: 7, why: 'the days of the week', member: DAY },
  {
    name: new RegExp(
      String.raw`\b${QUANTIFIED}(?:week\s*days|day\s+names)\b|\b${EACH}week\s*day\b|\bweekdays\b`,
      'i',
    ),
    count: 5,
    why: 'the weekdays',
    member: DAY,
  },
  {
    name: new RegExp(
      String.raw`\b${QUANTIFIED}(?:calendar\s+)?months\b|\b${EACH}(?:calendar\s+)?month\b|\bmonths\s+of\s+the\s+year\b|\bmonth\s+names\b`,
      'i',
    ),
    count: 12,
    why: 'the months',
    member: MONTH,
  },
  {
    name: new RegExp(String.raw`\b${QUANTIFIED}(?:common\s+|standard\s+)?(?:HTTP\s+)?status\s+codes\b`, 'i'),
    count: 5,
    why: 'the HTTP status codes',
    member: /^[1-5]\d\d$/,
  },
  {
    name: new RegExp(String.raw`\b${QUANTIFIED}seasons\b`, 'i'),
    count: 4,
    why: 'the seasons',
    member: /^(?:spring|summer|autumn|fall|winter)/i,
  },
  {
    name: new RegExp(String.raw`\b${QUANTIFIED}planets\b`, 'i'),
    count: 8,
    why: 'the planets',
    member: /^(?:mercury|venus|earth|mars|jupiter|saturn|uranus|neptune)/i,
  },
  {
    name: new RegExp(String.raw`\b${QUANTIFIED}continents\b`, 'i'),
    count: 7,
    why: 'the continents',
    member: /^(?:africa|antarctica|asia|australia|oceania|europe|north\s+america|south\s+america)/i,
  },
  {
    name: new RegExp(String.raw`\b${QUANTIFIED}(?:zodiac\s+signs|signs\s+of\s+the\s+zodiac)\b`, 'i'),
    count: 12,
    why: 'the zodiac signs',
    member: /^(?:aries|taurus|gemini|cancer|leo|virgo|libra|scorpio|sagittarius|capricorn|aquarius|pisces)/i,
  },
  {
    name: new RegExp(
      String.raw`\b${QUANTIFIED}(?:US\s+|U\.S\.\s+)?states\s+of\s+the\s+(?:US|USA|United\s+States)\b|\b${QUANTIFIED}(?:US|U\.S\.)\s+states\b`,
      'i',
    ),
    count: 50,
    why: 'the US states',
    member: /^(?:alabama|alaska|arizona|california|colorado|texas|new\s+york|florida|[A-Z]{2}$)/i,
  },
  {
    name: new RegExp(String.raw`\b${QUANTIFIED}(?:cardinal\s+directions|compass\s+points)\b`, 'i'),
    count: 4,
    why: 'the cardinal directions',
    member: /^(?:north|south|east|west|[NSEW]$)/i,
  },
  {
    name: new RegExp(String.raw`\b${QUANTIFIED}hex(?:adecimal)?\s+digits\b`, 'i'),
    count: 16,
    why: 'the hexadecimal digits',
    member: /^(?:[0-9a-f])$/i,
  },
  {
    name: new RegExp(String.raw`\b${QUANTIFIED}(?:card\s+)?suits\b`, 'i'),
    count: 4,
    why: 'the card suits',
    member: /^(?:hearts?|diamonds?|clubs?|spades?)/i,
  },
];

/**
 * The least number of cases a request implies by naming a well-known set as the table's domain
 * ("every weekday", "the months", "the HTTP status codes"), or undefined when it names none.
 * Only for requests that give no count themselves ({@link askedCases} answers those).
 */
export function impliedCases(description: string): ImpliedCases | undefined {
  const known = KNOWN_SETS.find((set) => set.name.test(description));
  return known === undefined ? undefined : { count: known.count, why: known.why, member: known.member };
}

/** The cases a well-known set implies, and what belongs to it. */
export interface ImpliedCases extends AskedCases {
  /** Tests a table's bare key or value: only a table holding a member of the set is judged. */
  member: RegExp;
}
