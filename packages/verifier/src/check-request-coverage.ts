import type { Plan, Step } from '@closedloop/plan';
import { escapeRegExp } from './escape-reg-exp';
import type { Finding } from './finding';
import { analyseLedger, type LedgerEvidenceOptions } from './ledger-evidence';
import { stepExpectations } from './step-expectations';
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

/**
 * A declaration named without backticks: a code noun, then the name — after `named`/`called`
 * ("a class named Cache"), or plainly code ("the helper function formatDate", "parseDate()",
 * "an interface Options"). Groups: 1 the noun, 2 `named`/`called`, 3 the name, 4 `()`.
 */
const DECLARATION =
  /\b(functions?|methods?|helpers?|class(?:es)?|interfaces?|types?|enums?|constants?|hooks?|components?)\s+(?:(?:function|method|class|helper|hook|component)\s+)?(?:(named|called)\s+)?([A-Za-z_$][\w$]*)(\(\))?(?![\w$./-])/gi;
/** Nouns whose declarations are capitalised by convention ("a class Cache"). */
const TYPE_NOUN = /^(?:class|interface|type|enum|component)/i;
/** Words that follow `named`/`called` without being a name ("named after the route"). */
const NOT_A_NAME =
  /^(?:a|an|the|after|for|by|from|to|in|on|of|with|as|and|or|that|which|who|it|its|this|so|like|something|whatever)$/i;

/** Names of declarations in `span` (backticked spans already masked) that plainly are code. */
function bareDeclarations(span: string): string[] {
  const names: string[] = [];
  for (const match of span.matchAll(DECLARATION)) {
    const [, noun = '', called, name = '', call] = match;
    if (NOT_A_NAME.test(name)) continue;
    const code =
      called !== undefined ||
      call !== undefined ||
      /[_$]|[a-z][A-Z]/.test(name) ||
      (TYPE_NOUN.test(noun) && /^[A-Z]/.test(name));
    if (code) names.push(name);
  }
  return names;
}

/** Clause boundaries: sentence ends, semicolons, line breaks, `then`, `, and`. */
const CLAUSE_BREAK = /(?<=[.!?])\s+|[;\n]|\bthen\b|,\s*and\b(?=\s+\w+\s)/i;

/**
 * Identifiers the request asks to be added (`Add \`sub\`, \`mul\` and \`div\``): the
 * names after an add-like verb in the same clause, up to a verb that asks for something else
 * (`remove`, `rename`, `instead of`…). `name()` counts as `name`; paths, literals and names with
 * spaces are not identifiers. Without backticks, only declarations that plainly name code count
 * ("a function called parseDate", "a class named Cache", "the helper formatDate"), never an
 * ordinary word ("a function to parse dates", "a helper named after the route").
 *
 * @example
 * askedNames('Add `sub`, `mul` and `div` to src/math.js'); // ['sub', 'mul', 'div']
 * askedNames('Add a function called parseDate and a class named Cache'); // ['parseDate', 'Cache']
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
    for (const name of bareDeclarations(masked.slice(add.index, end))) names.add(name);
  }
  return [...names];
}

/**
 * The files the request asks to create, delete or rename (read by {@link stepExpectations}, as a
 * step's description is), judged on the final workspace: a file to create must be there, one to
 * delete gone, a renamed one at its new path and gone from the old — whether or not any step
 * was planned for it. A file asked both ways (created, then deleted) is not judged, and a file
 * asked to be deleted by a request that also asks to run, build or install (which may make it
 * again) is only unverified when it is there.
 */
function askedFileFindings(request: string, facts: WorkspaceFacts): Finding[] {
  const asked = stepExpectations(request);
  const base = { check: 'request', priority: 'P1' as const };
  const findings: Finding[] = [];
  const rel = (file: string) => facts.relative(file) ?? file;
  const movedFrom = new Set(asked.move.map((move) => rel(move.from)));
  const movedTo = new Set(asked.move.map((move) => rel(move.to)));
  const created = new Set(asked.create.map(rel));
  const removed = new Set(asked.remove.map(rel));
  for (const file of created) {
    if (removed.has(file) || movedFrom.has(file)) continue;
    findings.push(
      facts.exists(file)
        ? { ...base, status: 'pass', message: `${file}, asked to be created, is in the workspace.` }
        : {
            ...base,
            status: 'fail',
            message: `The request asks to create ${file}, but it is not in the workspace at the end of the run: no step did that part of the request.`,
          },
    );
  }
  // "Delete dist/ and rebuild", "remove the lockfile and reinstall": a run may make it again.
  const remade = ['run', 'install', 'test'].some((outcome) => asked.outcomes.has(outcome as never));
  for (const file of removed) {
    if (created.has(file) || movedTo.has(file)) continue;
    findings.push(
      !facts.exists(file)
        ? { ...base, status: 'pass', message: `${file}, asked to be deleted, is gone.` }
        : remade
          ? {
              ...base,
              status: 'warn',
              message: `Unverified: the request asks to delete ${file}, which is in the workspace at the end of the run (a command it asks for may have made it again).`,
            }
          : {
              ...base,
              status: 'fail',
              message: `The request asks to delete ${file}, but it is still in the workspace at the end of the run.`,
            },
    );
  }
  for (const move of asked.move) {
    const [from, to] = [rel(move.from), rel(move.to)];
    const problems = [
      ...(facts.exists(from) && !created.has(from) ? [`${from} is still there`] : []),
      ...(facts.exists(to) ? [] : [`${to} is not there`]),
    ];
    findings.push(
      problems.length === 0
        ? { ...base, status: 'pass', message: `${from} was renamed to ${to}, as asked.` }
        : {
            ...base,
            status: 'fail',
            message: `The request asks to rename ${from} to ${to}, but ${problems.join(' and ')} at the end of the run.`,
          },
    );
  }
  return findings;
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
 *   unverified (`warn`);
 * - each file the request asks to create must exist at the end of the run, each one it asks to
 *   delete must be gone, each one it asks to rename must be at its new path and not the old —
 *   a step the planner left out or a replan dropped does not hide it.
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
  findings.push(...askedFileFindings(request, facts));
  if (findings.length === 0)
    findings.push({
      ...base,
      status: 'pass',
      message: `The request asks for a change; ${effects} call(s) of the completed steps made changes.`,
    });
  return findings;
}
