import type { Redactor } from '@closedloop/model';
import { redactsToItselfWith } from '@closedloop/model/provider';

/**
 * `redactsToItselfWith(redactor, value)`, checked one element at a time for the arrays at the top
 * of `value` (a plan's steps, a report's steps), then for the rest of it: true when
 * `redactor.redactValue(value)` would return a copy equal to `value` field for field.
 *
 * One check looks at no more than 4,096 objects (past that the redactor cannot tell, and the
 * caller deep-copies through it): a plan or report of a few hundred steps is never found clean
 * as a whole. Element by element each check stays under the bound, and the fields checked are the
 * same (an array element has no key of its own for a secret-named-key rule to read).
 */
export function redactsToItselfInParts(redactor: Redactor, value: unknown): boolean {
  if (
    value === null ||
    typeof value !== 'object' ||
    Array.isArray(value) ||
    Object.getPrototypeOf(value) !== Object.prototype ||
    Object.getOwnPropertySymbols(value).length > 0
  )
    return redactsToItselfWith(redactor, value);
  const rest: Record<string, unknown> = {};
  for (const key in value) {
    const field = (value as Record<string, unknown>)[key];
    if (!Array.isArray(field)) {
      rest[key] = field;
      continue;
    }
    for (let index = 0; index < field.length; index++)
      if (!redactsToItselfWith(redactor, field[index])) return false;
    rest[key] = [];
  }
  return redactsToItselfWith(redactor, rest);
}
