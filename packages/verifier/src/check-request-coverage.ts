import type { Plan, Step } from '@closedloop/plan';
import { escapeRegExp } from './escape-reg-exp';
import type { Finding } from './finding';
import { analyseLedger, type LedgerEvidenceOptions } from './ledger-evidence';
import type { WorkspaceFacts } from './workspace-facts';

/** Verbs that ask for a change of the workspace. */
const CHANGE_VERBS =
  'add|adds|create|creates|write|writes|implement|implements|fix|fixes|remove|removes|delete|deletes|rename|renames|update|updates|change|modify|modifies|edit|edits|refactor|refactors|replace|replaces|move|moves|install|installs|upgrade|upgrades|bump|bumps|insert|inserts|append|appends|define|defines|introduce|introduces|convert|converts|migrate|migrates|patch|patches|set up|configure|configures|commit|commits|generate|generates|port|ports|extract|extracts';

/** Verbs after which backticked names are asked to exist when the work is done. */
const ADD_VERBS =
  /\b(?:add|adds|create|creates|write|writes|implement|implements|define|defines|introduce|introduces|export|exports)\b/i;

/** Verbs after which named things are asked to go away or be renamed: names after them are not asked to exist. */
const OTHER_VERBS =
  /\b(?:remove|removes|delete|deletes|drop|drops|rename|renames|replace|replaces|deprecate|deprecates|move|moves|instead of|without|not|don't|never)\b/i;

/** The request without quoted or fenced spans (a quoted `set` is a name, not a verb). */
function prose(request: string): string {
  return request
    .replace(/```[\s\S]*?```/g, ' ')
    .replace(/`[^`\n]*`/g, ' ')
    .replace(/"[^"\n]*"|“[^”\n]*”/g, ' ');
}

/**
 * A change verb where a request gives an order: at the start of the request or of a clause
 * (after `.`, `;`, `:`, a line break, `,`, `and`, `then`, `please`), or after `can you`/`you to`.
 * "Give me an update on…", "explain how to add…" and "check whether the install works" name a
 * change verb as a noun or as the subject of a question: no change is asked.
 */
const changeVerb = new RegExp(
  `(?:^|[.!?;:\\n,]|\\b(?:and|then|please|also)\\b|\\b(?:can|could|would|will)\\s+you\\b|\\byou\\s+to\\b)\\s*(?:(?:please|also|now|first|then|and|just)\\s+)*(${CHANGE_VERBS})\\b`,
  'i',
);
const negatedVerb = new RegExp(
  `\\b(?:not|n't|never|without|no need to)\\s+(?:\\w+\\s+)?(?:${CHANGE_VERBS})\\b`,
  'gi',
);

/**
 * The change verb the request orders with (`add`, `fix`…), or undefined when it only asks to
 * look, explain or report (a verb used as a noun or inside a question is no order). Quoted spans are not read (a quoted `set` is a name), and negated verbs
 * (`do not change`, `without modifying`) are not asks.
 *
 * @example
 * askedChange('Add `sum` to src/math.js'); // 'Add'
 * askedChange('Read src/math.js and tell me what it exports'); // undefined
 */
export function askedChange(request: string): string | undefined {
  const text = prose(request).replace(negatedVerb, ' ');
  return changeVerb.exec(text.trim())?.[1];
}

/** Clause boundaries: sentence ends, semicolons, line breaks, `then`, `, and`. */
const CLAUSE_BREAK = /(?<=[.!?])\s+|[;\n]|\bthen\b|,\s*and\b(?=\s+\w+\s)/i;

/**
 * Backticked identifiers the request asks to be added (`Add \`sub\`, \`mul\` and \`div\``): the
 * names after an add-like verb in the same clause, up to a verb that asks for something else
 * (`remove`, `rename`, `instead of`…). `name()` counts as `name`; paths, literals and names with
 * spaces are not identifiers.
 *
 * @example
 * askedNames('Add `sub`, `mul` and `div` to src/math.js'); // ['sub', 'mul', 'div']
 */
export function askedNames(request: string): string[] {
  const names = new Set<string>();
  for (const clause of request.split(CLAUSE_BREAK)) {
    if (clause === undefined) continue;
    const masked = clause.replace(/`[^`\n]*`/g, (span) => ' '.repeat(span.length));
    const add = ADD_VERBS.exec(masked);
    if (!add) continue;
    const rest = masked.slice(add.index + add[0].length);
    const other = OTHER_VERBS.exec(rest);
    const end = add.index + add[0].length + (other ? other.index : rest.length);
    const span = clause.slice(add.index, end);
    for (const match of span.matchAll(/`([A-Za-z_$][\w$]*)(?:\(\))?`/g)) names.add(match[1]!);
  }
  return [...names];
}

/**
 * Whether the plan's completed work covers what the request asked, judged on the final
 * workspace (absence of evidence is not success):
 *
 * - a request that asks for a change (`add`, `fix`, `remove`…) while no completed step made one
 *   — only reads, an empty or inspect-only plan, a failed step replanned into a review — fails;
 * - each backticked name the request asks to add must appear, as a word, in a file a completed
 *   step wrote: a name in none fails (work left out of the plan, or dropped by a replan); when a
 *   completed step also ran commands that may have written elsewhere, the name is only
 *   unverified (`warn`).
 *
 * Findings are P1 `request`; a request that asks for nothing checkable here gives none.
 */
export function checkRequestCoverage(
  plan: Plan,
  request: string,
  facts: WorkspaceFacts,
  options: LedgerEvidenceOptions = {},
): Finding[] {
  const verb = askedChange(request);
  if (verb === undefined) return [];
  const completed: Step[] = plan.steps.filter((step) => step.status === 'completed');
  const relative = options.relative ?? ((file: string) => facts.relative(file));
  let effects = 0;
  let untargeted = false;
  const written = new Set<string>();
  for (const step of completed) {
    const analysis = analyseLedger(step.ledger, { ...options, relative });
    effects += analysis.effectCount;
    for (const call of analysis.calls) {
      if (call.call.status !== 'success') continue;
      if (call.kind === 'write') for (const target of call.targets) written.add(target);
      else if (call.kind === 'command' && !call.command?.exploratory) untargeted = true;
      else if (call.kind === 'other') untargeted = true;
    }
    for (const file of step.files) written.add(facts.relative(file) ?? file);
  }
  const base = { check: 'request', priority: 'P1' as const };
  if (effects === 0) {
    return [
      {
        ...base,
        status: 'fail',
        message: `The request asks for a change ("${verb} …"), but no completed step changed anything: ${
          completed.length === 0 ? 'no step completed' : `the ${completed.length} completed step(s) only read`
        }.`,
      },
    ];
  }
  const findings: Finding[] = [];
  const contents = [...written].flatMap((file) => {
    const text = facts.read(file);
    return text === undefined ? [] : [text];
  });
  for (const name of askedNames(request)) {
    const word = new RegExp(`(?<![\\w$])${escapeRegExp(name)}(?![\\w$])`);
    if (contents.some((text) => word.test(text))) {
      findings.push({
        ...base,
        status: 'pass',
        message: `\`${name}\`, asked for, is in a file the run wrote.`,
      });
    } else {
      findings.push({
        ...base,
        status: untargeted ? 'warn' : 'fail',
        message: untargeted
          ? `Unverified: the request asks for \`${name}\`; no file a step wrote contains it (a command may have written it elsewhere).`
          : `The request asks for \`${name}\`, but no file a completed step wrote contains it: no step did that part of the request.`,
      });
    }
  }
  if (findings.length === 0)
    findings.push({
      ...base,
      status: 'pass',
      message: `The request asks for a change; ${effects} call(s) of the completed steps made changes.`,
    });
  return findings;
}
