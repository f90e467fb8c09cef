/**
 * `@closedloop/model/error`: the one base of every closedloop error, on its own — no schema
 * library, no providers — for code that must stay light (a CLI's start-up, a web page) and for
 * packages whose only need of this one is the base class.
 */
export { ClosedloopError } from './closedloop-error';
