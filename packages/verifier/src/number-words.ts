/**
 * Small counts as requests and notes spell them: English words up to twenty and the CJK numerals
 * up to ten, by value. Each reader keeps its own pattern of which words it accepts.
 */
const NUMBER_WORDS: Readonly<Record<string, number>> = {
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  thirteen: 13,
  fourteen: 14,
  fifteen: 15,
  sixteen: 16,
  seventeen: 17,
  eighteen: 18,
  nineteen: 19,
  twenty: 20,
  一: 1,
  二: 2,
  两: 2,
  兩: 2,
  三: 3,
  四: 4,
  五: 5,
  六: 6,
  七: 7,
  八: 8,
  九: 9,
  十: 10,
};

/** The value of a count written in digits or as a number word (any case), or undefined. */
export function countOf(word: string | undefined): number | undefined {
  if (word === undefined) return undefined;
  if (/^\d+$/.test(word)) return Number(word);
  return Object.hasOwn(NUMBER_WORDS, word.toLowerCase()) ? NUMBER_WORDS[word.toLowerCase()] : undefined;
}
