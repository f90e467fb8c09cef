import { childrenOf, descendants, parseSource, type SourceTree, type SyntaxNode } from './code-parser';

/**
 * Hollow code, read from syntax trees (JS/TS and Python): functions whose body does nothing the
 * caller asked for (a stub) and test cases that cannot fail (no live assertion about anything
 * but constants). Used by the `hollow` check and by symbol claims.
 */

/** A function found in a source file. */
export interface FunctionBody {
  name: string;
  /** 1-based line of the declaration. */
  line: number;
  /** The body's text (to tell a changed body from an untouched one). */
  body: string;
  /** Why the body is a stub, if it is one. */
  stub: string | undefined;
  /** Set when the body only answers some literal inputs and is a stub for every other input. */
  specialCases?: SpecialCases;
}

/**
 * A function that answers only the inputs it compares with literals (`if (n === 5) return 120`,
 * `case 10: return 55`, `120 if n == 5 else 0`) and is a stub for any other input (a trivial
 * constant, its argument unchanged, nothing).
 */
export interface SpecialCases {
  /** The literals the parameters are compared with (`5`, `"racecar"`). */
  inputs: string[];
  /** The constants returned for them (`120`). */
  outputs: string[];
  /** What any other input gets: the constant's text, `the argument unchanged`, or `nothing`. */
  otherwise: string;
}

/** A test case found in a test file. */
export interface TestCase {
  name: string;
  line: number;
  body: string;
  /** Why the test cannot fail, if it cannot. */
  hollow: string | undefined;
}

const PUNCTUATION = new Set(['(', ')', '{', '}', '[', ']', ',', ';', ':', '.', '=>', 'Arrow']);
const COMMENTS = new Set(['LineComment', 'BlockComment', 'Comment']);
const CONSTANT_NAMES = new Set(['undefined', 'NaN', 'Infinity']);
const EMPTY = 'its body is empty';
const PASS_ONLY = 'its body is only `pass` / `...`';
const IDENTITY = 'it returns its argument unchanged';
/** Stub kinds that honest code also has (a no-op, an identity): judged only where the step's description is known. */
const EMPTY_BODY = new Set([EMPTY, PASS_ONLY, IDENTITY]);
const STUB_WORDS = /\b(?:todo|fixme|not\s+(?:yet\s+)?implemented|unimplemented|stub)\b|notimplemented/i;

/** Statement children of a block or body (tokens and comments left out). */
function statements(node: SyntaxNode | null | undefined): SyntaxNode[] {
  if (!node) return [];
  return childrenOf(node).filter((child) => !PUNCTUATION.has(child.name) && !COMMENTS.has(child.name));
}

/** An expression that reads no variable, calls nothing and has no `this`: a constant. */
function isConstant(source: SourceTree, node: SyntaxNode): boolean {
  // `{ id }` (shorthand) reads the variable `id`.
  const shorthand = [node, ...descendants(node, 'Property')].some(
    (inner) =>
      inner.name === 'Property' &&
      childrenOf(inner).length === 1 &&
      childrenOf(inner)[0]?.name === 'PropertyDefinition',
  );
  if (shorthand) return false;
  const reads = [node, ...descendants(node, 'VariableName', 'this', 'super', 'ThisExpression')].filter(
    (inner) => ['VariableName', 'this', 'super', 'ThisExpression'].includes(inner.name),
  );
  return reads.every((inner) => inner.name === 'VariableName' && CONSTANT_NAMES.has(source.textOf(inner)));
}

/** `x || true`, `x or True`: an expression whose value is truthy whatever `x` is. */
function alwaysTruthy(source: SourceTree, node: SyntaxNode): boolean {
  if (node.name !== 'BinaryExpression') return false;
  const parts = statements(node);
  const operator = source.textOf(parts[1]);
  const right = parts[2];
  return (
    (operator === '||' || operator === 'or') &&
    right !== undefined &&
    isConstant(source, right) &&
    !isFalsyConstant(source, right)
  );
}

/** A constant that is falsy: `false`, `0`, `null`, `''`, `None`, `undefined`. */
function isFalsyConstant(source: SourceTree, node: SyntaxNode): boolean {
  const text = source
    .textOf(node)
    .replace(/^\(|\)$/g, '')
    .trim();
  return /^(?:false|False|0|null|None|undefined|''|""|``)$/.test(text);
}

/** Every argument list along a call chain (`expect(a).toBe(b)` → a, b). */
function chainArgs(node: SyntaxNode): SyntaxNode[] {
  const args: SyntaxNode[] = [];
  let current: SyntaxNode | null = node;
  let guard = 0;
  while (current && guard++ < 50) {
    if (current.name === 'CallExpression') {
      const list = current.getChild('ArgList');
      if (list) args.push(...statements(list));
      current = current.firstChild;
    } else if (current.name === 'MemberExpression' || current.name === 'ParenthesizedExpression') {
      current = current.firstChild;
    } else break;
  }
  return args;
}

function rootName(source: SourceTree, node: SyntaxNode): string | undefined {
  let current: SyntaxNode | null = node;
  let guard = 0;
  while (current && guard++ < 50) {
    if (current.name === 'CallExpression' || current.name === 'MemberExpression')
      current = current.firstChild;
    else if (current.name === 'ParenthesizedExpression') current = statements(current)[0] ?? null;
    else if (current.name === 'VariableName') return source.textOf(current);
    else return undefined;
  }
  return undefined;
}

function memberNames(source: SourceTree, node: SyntaxNode): string[] {
  return descendants(node, 'PropertyName').map((property) => source.textOf(property));
}

const ASSERTION_ROOTS = new Set(['assert', 'expect', 'should', 'chai', 'assertThat', 'expectTypeOf']);
const NOISE_ROOTS = new Set(['console', 'print', 'log', 'logger', 'logging']);

/** Whether a call is an assertion, and whether it only compares constants. */
function judgeCall(source: SourceTree, call: SyntaxNode): 'trivial' | 'assertion' | 'noise' | 'call' {
  const root = rootName(source, call);
  const properties = memberNames(source, call.firstChild ?? call);
  const isAssertion =
    (root !== undefined && ASSERTION_ROOTS.has(root)) ||
    (root === 't' && properties.length > 0) ||
    (root === 'self' && properties.some((name) => /^assert/.test(name)));
  if (isAssertion) {
    // `expect(x)` with no matcher checks nothing.
    if ((root === 'expect' || root === 'assertThat') && call.firstChild?.name === 'VariableName')
      return 'trivial';
    const args = chainArgs(call);
    if (args.length === 0 || args.every((arg) => isConstant(source, arg) || alwaysTruthy(source, arg)))
      return 'trivial';
    // `assert(sum(2, 3), 5)`, `assert.ok(x, 5)`: the expected value passed as the message; only
    // truthiness is checked, and any non-zero answer passes.
    const own = statements(call.getChild('ArgList'));
    if (
      root === 'assert' &&
      /^assert(?:\.ok)?$/.test(source.textOf(call.firstChild).replace(/\s+/g, '')) &&
      own.length === 2 &&
      own[1] !== undefined &&
      isConstant(source, own[1]) &&
      !/^(?:String|TemplateString)$/.test(own[1].name)
    )
      return 'trivial';
    // `assert.equal(f(2), f(2))`, `expect(x).toBe(x)`: a value compared with itself.
    const [first, second] = args.map((arg) => source.textOf(arg).replace(/\s+/g, ''));
    return args.length === 2 && first === second ? 'trivial' : 'assertion';
  }
  if (root !== undefined && NOISE_ROOTS.has(root)) return 'noise';
  return 'call';
}

/** An empty literal collection: `[]`, `{}`, `()`, `''`, `new Set()`, `range(0)`. */
function isEmptyLiteral(source: SourceTree, node: SyntaxNode | undefined | null): boolean {
  if (!node) return false;
  const text = source.textOf(node).replace(/\s+/g, '');
  return /^(?:\[\]|\{\}|\(\)|''|""|``|new(?:Set|Map|Array)\(\)|(?:set|list|dict|tuple)\(\)|range\(0?\)|Object\.(?:keys|values|entries)\(\{\}\))$/.test(
    text,
  );
}

/**
 * Whether `node` is an empty literal collection, or a name bound once (`const cases = []`,
 * `CASES = []`) to one that nothing in the file adds to (no `push`, `append`, `add`, `set`,
 * `unshift`, `extend`, `insert`, index assignment or reassignment).
 */
function isEmptyCollection(source: SourceTree, node: SyntaxNode | undefined | null): boolean {
  if (!node) return false;
  if (isEmptyLiteral(source, node)) return true;
  if (node.name !== 'VariableName') return false;
  const name = source.textOf(node);
  const escaped = name.replace(/[$]/g, '\\$');
  const text = source.textOf(source.root);
  const bindings = [
    ...text.matchAll(new RegExp(`(?<![\\w$.])${escaped}\\s*(?::[^=\\n]+)?=(?![=>])\\s*([^\\n;]*)`, 'g')),
  ];
  if (bindings.length !== 1) return false;
  const value = (bindings[0]?.[1] ?? '').replace(/\s+/g, '').replace(/(?:as\w+|;)$/, '');
  if (!/^(?:\[\]|\{\}|\(\)|new(?:Set|Map|Array)\(\)|(?:set|list|dict|tuple)\(\))$/.test(value)) return false;
  return !new RegExp(
    `(?<![\\w$])${escaped}\\s*(?:\\.\\s*(?:push|append|add|set|unshift|extend|insert|splice|update|concat)\\b|\\[[^\\]]*\\]\\s*=(?!=)|\\+=)`,
  ).test(text);
}

/** A loop that runs its body zero times: over an empty collection, or `while (false)`. */
function neverLoops(source: SourceTree, loop: SyntaxNode): boolean {
  if (loop.name === 'WhileStatement') {
    const condition = statements(loop).find((child) => child.name !== 'while');
    const inner = condition?.name === 'ParenthesizedExpression' ? statements(condition)[0] : condition;
    return inner !== undefined && isConstant(source, inner) && isFalsyConstant(source, inner);
  }
  if (loop.name !== 'ForStatement') return false;
  const spec = loop.getChild('ForOfSpec') ?? loop.getChild('ForInSpec');
  if (spec) return isEmptyCollection(source, statements(spec).at(-1));
  // Python: `for x in <iterable>:` — the child after `in`.
  const children = statements(loop);
  const at = children.findIndex((child) => child.name === 'in');
  return at >= 0 && isEmptyCollection(source, children[at + 1]);
}

/**
 * Why a test call never runs because of where it is: inside a loop over an empty collection, a
 * `forEach`/`map` of one, or a `test.each([])` / `describe.each([])` / `@pytest.mark.parametrize`
 * over an empty table.
 */
function neverGenerated(source: SourceTree, call: SyntaxNode): string | undefined {
  const callee = call.firstChild;
  if (callee?.name === 'CallExpression' && /\.each$/.test(source.textOf(callee.firstChild))) {
    if (isEmptyCollection(source, statements(callee.getChild('ArgList'))[0])) return EMPTY_TABLE;
  }
  for (let node = call.parent; node; node = node.parent) {
    if ((node.name === 'ForStatement' || node.name === 'WhileStatement') && neverLoops(source, node))
      return EMPTY_TABLE;
    if (node.name === 'CallExpression') {
      const outer = node.firstChild;
      if (outer?.name === 'MemberExpression' && /\.(?:forEach|map|flatMap)$/.test(source.textOf(outer))) {
        if (isEmptyCollection(source, outer.firstChild)) return EMPTY_TABLE;
      }
      if (
        outer?.name === 'CallExpression' &&
        /^(?:describe|suite|context)\.each$/.test(source.textOf(outer.firstChild))
      ) {
        if (isEmptyCollection(source, statements(outer.getChild('ArgList'))[0])) return EMPTY_TABLE;
      }
    }
  }
  return undefined;
}

const EMPTY_TABLE = 'it never runs: it is generated from an empty table';

/**
 * Whether a list of statements can fail: `undefined` when it can (a live assertion about a
 * value, or a call of the code under test), else why it cannot.
 */
function canFail(source: SourceTree, body: SyntaxNode[], python: boolean): boolean {
  for (const statement of body) {
    switch (statement.name) {
      case 'ReturnStatement': {
        const value = statements(statement).filter((child) => child.name !== 'return');
        // `return request(app).expect(200)`: a returned promise is awaited by the runner.
        if (!python && value.length > 0 && !value.every((child) => isConstant(source, child))) return true;
        return false; // what follows is dead code
      }
      case 'ThrowStatement':
      case 'RaiseStatement':
        return true;
      case 'IfStatement': {
        const condition = statements(statement).find((child) => child.name !== 'if');
        if (condition && isConstant(source, condition)) {
          if (isFalsyConstant(source, condition)) continue;
        }
        return true;
      }
      case 'TryStatement': {
        // An empty handler swallows every failure of the try block.
        const handlers = python
          ? childrenOf(statement).filter(
              (child, at, all) =>
                child.name === 'Body' && !['try', 'finally', 'else'].includes(all[at - 1]?.name ?? 'try'),
            )
          : childrenOf(statement)
              .filter((child) => child.name === 'CatchClause')
              .map((clause) => clause.getChild('Block'));
        const swallows = handlers.some((handler) =>
          statements(handler).every((inner) => inner.name === 'PassStatement' || COMMENTS.has(inner.name)),
        );
        if (swallows) {
          const finallyBlock = python ? undefined : statement.getChild('FinallyClause');
          if (finallyBlock && canFail(source, statements(finallyBlock.getChild('Block')), python))
            return true;
          continue;
        }
        return true;
      }
      case 'PassStatement':
        continue;
      case 'ForStatement':
      case 'WhileStatement':
        if (neverLoops(source, statement)) continue;
        return true;
      case 'Block':
        if (canFail(source, statements(statement), python)) return true;
        continue;
      case 'AssertStatement': {
        const subject = statements(statement).filter((child) => child.name !== 'assert');
        // `assert (add(2, 3), 5)`: a non-empty tuple is always true.
        if (subject[0]?.name === 'TupleExpression' && statements(subject[0]).length > 0) continue;
        // `assert add(2, 3) == 5 or True`: true whatever the code does.
        if (
          subject.length > 0 &&
          !subject.every((child) => isConstant(source, child) || alwaysTruthy(source, child))
        )
          return true;
        continue;
      }
      case 'VariableDeclaration':
      case 'AssignStatement': {
        const values = statements(statement).filter(
          (child) =>
            ![
              'const',
              'let',
              'var',
              'VariableDefinition',
              'VariableName',
              'AssignOp',
              'Equals',
              'TypeAnnotation',
            ].includes(child.name),
        );
        if (values.every((child) => isConstant(source, child))) continue;
        return true;
      }
      case 'ExpressionStatement': {
        let expression = statements(statement)[0];
        if (!expression) continue;
        if (expression.name === 'AwaitExpression')
          expression = statements(expression).find((child) => child.name !== 'await') ?? expression;
        // A docstring, `...` or a bare constant does nothing.
        if (isConstant(source, expression)) continue;
        if (expression.name === 'CallExpression') {
          // `[].forEach(() => assert…)`: a callback over an empty collection never runs.
          const callee = expression.firstChild;
          if (
            callee?.name === 'MemberExpression' &&
            /\.(?:forEach|map|flatMap|filter|some|every|find)$/.test(source.textOf(callee)) &&
            isEmptyCollection(source, callee.firstChild)
          )
            continue;
          const kind = judgeCall(source, expression);
          if (kind === 'trivial' || kind === 'noise') continue;
          return true;
        }
        return true;
      }
      default:
        return true;
    }
  }
  return false;
}

/** The test cases of a JS/TS test file (`test(…)`, `it(…)`, `test.each(…)(…)`) and Python `def test_*`. */
export async function listTestCases(fileName: string, text: string): Promise<TestCase[] | undefined> {
  const source = await parseSource(fileName, text);
  if (
    !source ||
    (source.language !== 'javascript' && source.language !== 'typescript' && source.language !== 'python')
  )
    return undefined;
  const cases: TestCase[] = [];
  if (source.language === 'python') {
    for (const definition of descendants(source.root, 'FunctionDefinition')) {
      const name = source.textOf(definition.getChild('VariableName'));
      if (!/^test/.test(name)) continue;
      const body = definition.getChild('Body');
      const decorators =
        definition.parent?.name === 'DecoratedStatement'
          ? childrenOf(definition.parent).filter((child) => child.name === 'Decorator')
          : [];
      const emptyTable = decorators.some(
        (decorator) =>
          /parametrize$/.test(source.textOf(decorator).split('(')[0] ?? '') &&
          isEmptyCollection(source, statements(decorator.getChild('ArgList'))[1]),
      );
      cases.push({
        name,
        line: source.lineOf(definition),
        body: source.textOf(body),
        hollow: emptyTable
          ? EMPTY_TABLE
          : canFail(source, statements(body), true)
            ? undefined
            : 'no live assertion about a value',
      });
    }
    return cases;
  }
  for (const call of descendants(source.root, 'CallExpression')) {
    const root = rootName(source, call);
    if (root !== 'test' && root !== 'it') continue;
    const names = memberNames(source, call.firstChild ?? call);
    if (names.some((name) => /^(?:skip|todo|fails)$/.test(name))) continue;
    const args = statements(call.getChild('ArgList'));
    const fn = args.at(-1);
    if (!fn || (fn.name !== 'ArrowFunction' && fn.name !== 'FunctionExpression')) continue;
    // A callee that is itself a call (`test.each(table)`) is judged through its outer call only.
    const title = args[0] && args[0] !== fn ? source.textOf(args[0]) : `line ${source.lineOf(call)}`;
    const block = fn.getChild('Block');
    const body = block
      ? statements(block)
      : statements(fn).filter(
          (child) => child.name !== 'ParamList' && child.name !== 'TypeAnnotation' && child.name !== 'async',
        );
    const asStatements = block ? body : body.map((expression) => expression); // an expression body: judged as one statement below
    const fails = block
      ? canFail(source, asStatements, false)
      : asStatements.some((expression) =>
          expression.name === 'CallExpression'
            ? !['trivial', 'noise'].includes(judgeCall(source, expression))
            : !isConstant(source, expression),
        );
    const never = neverGenerated(source, call);
    cases.push({
      name: title,
      line: source.lineOf(call),
      body: source.textOf(fn),
      hollow:
        never ??
        (fails ? undefined : body.length === 0 ? 'an empty body' : 'no live assertion about a value'),
    });
  }
  return cases;
}

/** The names of a function's parameters (`self` and `cls` left out). */
function paramNames(source: SourceTree, list: SyntaxNode | null): string[] {
  if (!list) return [];
  return statements(list)
    .filter((child) => child.name !== 'TypeAnnotation')
    .map((child) => source.textOf(child))
    .filter((name) => name !== 'self' && name !== 'cls' && !/^[*/]+$/.test(name));
}

/** Why a returned expression makes the function a stub: a constant, or a parameter unchanged. */
function returnedStub(
  source: SourceTree,
  value: SyntaxNode | undefined,
  params: string[],
): string | undefined {
  if (params.length === 0) return undefined;
  if (value === undefined || isConstant(source, value))
    return `it returns a constant (${value ? source.textOf(value).slice(0, 40) : 'nothing'}) whatever its arguments`;
  // A parameter returned as it came (one with a default value computes something: the default).
  if (value.name === 'VariableName' && params.includes(source.textOf(value)) && !params.includes('='))
    return IDENTITY;
  return undefined;
}

/** Constants a function that does not compute returns: zero, one, nothing, empty. */
const TRIVIAL_CONSTANT =
  /^(?:-?[01](?:\.0)?|null|None|undefined|NaN|''|""|``|\[\]|\{\}|\(\)|false|False|true|True)$/;

/**
 * The literals a condition compares the parameters with, when it does nothing else: `n === 5`,
 * `5 == n`, `s in ("a", "b")`, and `||` / `&&` / `or` / `and` of those. Undefined otherwise.
 */
function literalTest(
  source: SourceTree,
  node: SyntaxNode | undefined,
  params: string[],
): string[] | undefined {
  if (!node) return undefined;
  if (node.name === 'ParenthesizedExpression') {
    const inner = statements(node);
    return inner.length === 1 ? literalTest(source, inner[0], params) : undefined;
  }
  if (node.name !== 'BinaryExpression') return undefined;
  const [left, operator, right, ...extra] = statements(node);
  if (!left || !operator || !right || extra.length > 0) return undefined;
  const op = source.textOf(operator);
  if (['||', '&&', 'or', 'and'].includes(op)) {
    const a = literalTest(source, left, params);
    const b = literalTest(source, right, params);
    return a && b ? [...a, ...b] : undefined;
  }
  const isParam = (side: SyntaxNode) => side.name === 'VariableName' && params.includes(source.textOf(side));
  if (op === '===' || op === '==') {
    if (isParam(left) && isConstant(source, right)) return [source.textOf(right)];
    if (isParam(right) && isConstant(source, left)) return [source.textOf(left)];
    return undefined;
  }
  if (
    op === 'in' &&
    isParam(left) &&
    ['TupleExpression', 'ArrayExpression', 'SetExpression'].includes(right.name)
  ) {
    const items = statements(right);
    return items.length > 0 && items.every((item) => isConstant(source, item))
      ? items.map((item) => source.textOf(item))
      : undefined;
  }
  return undefined;
}

/** The constant a statement (or a block of one statement) returns, if that is all it does. */
function constantReturn(source: SourceTree, node: SyntaxNode | undefined): string | undefined {
  if (!node) return undefined;
  if (node.name === 'Block' || node.name === 'Body') {
    const inner = statements(node);
    return inner.length === 1 ? constantReturn(source, inner[0]) : undefined;
  }
  if (node.name !== 'ReturnStatement') return undefined;
  const value = statements(node).filter((child) => child.name !== 'return');
  return value.length === 1 && value[0] && isConstant(source, value[0]) ? source.textOf(value[0]) : undefined;
}

/** What a returned expression gives any input the guards did not catch, if it is a stub's answer. */
function trivialAnswer(
  source: SourceTree,
  value: SyntaxNode | undefined,
  params: string[],
): string | undefined {
  if (value === undefined) return 'nothing';
  if (value.name === 'VariableName' && params.includes(source.textOf(value))) return 'the argument unchanged';
  const text = source.textOf(value).replace(/\s+/g, '');
  return isConstant(source, value) && TRIVIAL_CONSTANT.test(text) ? text : undefined;
}

/** What the statements left after the guards give any other input, if they only return a stub's answer. */
function trivialRest(
  source: SourceTree,
  rest: SyntaxNode[],
  params: string[],
  python: boolean,
): string | undefined {
  const doing = rest.filter(
    (statement) =>
      statement.name !== 'PassStatement' &&
      !(statement.name === 'ExpressionStatement' && statements(statement)[0]?.name === 'Ellipsis'),
  );
  if (doing.length === 0) return 'nothing';
  if (doing.length !== 1) return undefined;
  const only = doing[0] as SyntaxNode;
  if (only.name === 'ThrowStatement' || only.name === 'RaiseStatement') {
    const text = source.textOf(only);
    return STUB_WORDS.test(text) ? `a throw (${text.slice(0, 40)})` : undefined;
  }
  if (only.name === 'ReturnStatement') {
    const value = statements(only).filter((child) => child.name !== 'return');
    return value.length > 1 ? undefined : conditionalAnswer(source, value[0], params, python);
  }
  return undefined;
}

/**
 * A returned `cond ? a : b` / `a if cond else b` chain over literal tests: its guards and what
 * any other input gets. Plain answers pass through {@link trivialAnswer}.
 */
function conditionalAnswer(
  source: SourceTree,
  value: SyntaxNode | undefined,
  params: string[],
  python: boolean,
  cases?: { inputs: string[]; outputs: string[] },
): string | undefined {
  if (value?.name === 'ParenthesizedExpression') {
    const inner = statements(value);
    if (inner.length === 1) return conditionalAnswer(source, inner[0], params, python, cases);
  }
  // `return text == 'racecar'`: true for the literals compared, false for any other input.
  const compared = cases !== undefined ? literalTest(source, value, params) : undefined;
  if (cases !== undefined && compared !== undefined) {
    cases.inputs.push(...compared);
    cases.outputs.push(python ? 'True' : 'true');
    return python ? 'False' : 'false';
  }
  if (value?.name !== 'ConditionalExpression') return trivialAnswer(source, value, params);
  const parts = statements(value).filter((child) => !['LogicOp', 'if', 'else'].includes(child.name));
  const [condition, answer, other] = python ? [parts[1], parts[0], parts[2]] : parts;
  const inputs = literalTest(source, condition, params);
  const output = answer && isConstant(source, answer) ? source.textOf(answer) : undefined;
  if (!inputs || output === undefined || !cases) return undefined;
  cases.inputs.push(...inputs);
  cases.outputs.push(output);
  return conditionalAnswer(source, other, params, python, cases);
}

/**
 * Whether a body only answers literal inputs (guards that compare a parameter with a constant and
 * return a constant) and is a stub for any other input. See {@link SpecialCases}.
 */
function specialCasesOf(
  source: SourceTree,
  statementsOfBody: SyntaxNode[],
  params: string[],
  python: boolean,
): SpecialCases | undefined {
  if (params.length === 0) return undefined;
  // A docstring first does nothing.
  const first = statementsOfBody[0];
  const body =
    python && first?.name === 'ExpressionStatement' && statements(first)[0]?.name === 'String'
      ? statementsOfBody.slice(1)
      : statementsOfBody;
  const cases = { inputs: [] as string[], outputs: [] as string[] };
  let rest: SyntaxNode[] = [];
  let index = 0;
  for (; index < body.length; index++) {
    const statement = body[index] as SyntaxNode;
    if (statement.name === 'IfStatement') {
      const parts = statements(statement);
      // [if, cond, branch, (elif, cond, branch)*, (else, branch)?]
      let at = 0;
      let ok = true;
      let elseBranch: SyntaxNode | undefined;
      while (at < parts.length) {
        const keyword = parts[at]?.name;
        if (keyword === 'if' || keyword === 'elif') {
          const inputs = literalTest(source, parts[at + 1], params);
          const output = constantReturn(source, parts[at + 2]);
          if (!inputs || output === undefined) {
            ok = false;
            break;
          }
          cases.inputs.push(...inputs);
          cases.outputs.push(output);
          at += 3;
        } else if (keyword === 'else') {
          elseBranch = parts[at + 1];
          // JS `else if`: the branch is another IfStatement, judged as the rest.
          at = parts.length;
        } else {
          ok = false;
          break;
        }
      }
      if (!ok) return undefined;
      if (elseBranch) {
        rest =
          elseBranch.name === 'Block' || elseBranch.name === 'Body' ? statements(elseBranch) : [elseBranch];
        index = body.length;
        break;
      }
      continue;
    }
    if (statement.name === 'SwitchStatement') {
      const subject = statements(statement.getChild('ParenthesizedExpression'))[0];
      if (subject?.name !== 'VariableName' || !params.includes(source.textOf(subject))) return undefined;
      const arms = statements(statement.getChild('SwitchBody'));
      let pending: string[] = [];
      let fallback: SyntaxNode[] | undefined;
      for (const arm of arms) {
        if (fallback) {
          fallback.push(arm);
          continue;
        }
        if (arm.name === 'CaseLabel') {
          const literal = statements(arm).find((child) => child.name !== 'case');
          if (!literal || !isConstant(source, literal)) return undefined;
          pending.push(source.textOf(literal));
        } else if (arm.name === 'DefaultLabel') {
          if (pending.length > 0) return undefined;
          fallback = [];
        } else {
          const output = constantReturn(source, arm);
          if (output === undefined || pending.length === 0) return undefined;
          cases.inputs.push(...pending);
          cases.outputs.push(output);
          pending = [];
        }
      }
      if (pending.length > 0) return undefined;
      rest = [...(fallback ?? []), ...body.slice(index + 1)];
      index = body.length;
      break;
    }
    if (statement.name === 'ReturnStatement') {
      const value = statements(statement).filter((child) => child.name !== 'return');
      if (value.length !== 1) return undefined;
      const otherwise = conditionalAnswer(source, value[0], params, python, cases);
      return otherwise !== undefined && cases.inputs.length > 0 ? { ...cases, otherwise } : undefined;
    }
    break;
  }
  if (index < body.length) rest = body.slice(index);
  if (cases.inputs.length === 0) return undefined;
  const otherwise = trivialRest(source, rest, params, python);
  return otherwise === undefined ? undefined : { ...cases, otherwise };
}

function judgeBody(
  source: SourceTree,
  body: SyntaxNode[],
  params: string[],
  python: boolean,
): string | undefined {
  const live = body.filter(
    (statement, index) =>
      !(
        python &&
        index === 0 &&
        statement.name === 'ExpressionStatement' &&
        statements(statement)[0]?.name === 'String'
      ),
  );
  const doing = live.filter(
    (statement) =>
      statement.name !== 'PassStatement' &&
      !(statement.name === 'ExpressionStatement' && statements(statement)[0]?.name === 'Ellipsis'),
  );
  if (doing.length === 0)
    return live.length > 0 || python ? PASS_ONLY : params.length > 0 ? EMPTY : undefined;
  if (doing.length !== 1) return undefined;
  const only = doing[0] as SyntaxNode;
  if (only.name === 'ThrowStatement' || only.name === 'RaiseStatement') {
    const text = source.textOf(only);
    return STUB_WORDS.test(text) ? `it only throws (${text.slice(0, 60)})` : undefined;
  }
  if (only.name === 'ReturnStatement') {
    const value = statements(only).filter((child) => child.name !== 'return');
    return value.length > 1 ? undefined : returnedStub(source, value[0], params);
  }
  return undefined;
}

/**
 * The function a body only hands its work to — `return convert(text)`, `=> convert(text)`,
 * `return await this.convert(text)`, `self._convert(text)` as the one statement — if it does.
 */
function delegateOf(source: SourceTree, body: SyntaxNode[]): string | undefined {
  const live = body.filter(
    (statement, index) =>
      !(
        index === 0 &&
        statement.name === 'ExpressionStatement' &&
        statements(statement)[0]?.name === 'String'
      ),
  );
  if (live.length !== 1) return undefined;
  const only = live[0] as SyntaxNode;
  let expression: SyntaxNode | undefined =
    only.name === 'ReturnStatement' || only.name === 'ExpressionStatement'
      ? statements(only).filter((child) => child.name !== 'return')[0]
      : only;
  while (expression?.name === 'AwaitExpression' || expression?.name === 'ParenthesizedExpression')
    expression = statements(expression).filter((child) => child.name !== 'await')[0];
  if (expression?.name !== 'CallExpression') return undefined;
  const callee = source.textOf(expression.firstChild);
  return /^(?:(?:this|self|cls)\.)?([A-Za-z_$][\w$]*)$/.exec(callee)?.[1];
}

/**
 * Marks as stubs the functions that only hand their work to a stub of the same file (`return
 * convert(text)` where `convert` only throws "not implemented"), through any chain of such calls.
 * Bodies that honest code also has (empty, identity) are not passed on.
 */
function passStubsOn(found: FunctionBody[], delegates: Map<FunctionBody, string>): void {
  for (let changed = true; changed; ) {
    changed = false;
    for (const [fn, callee] of delegates) {
      if (fn.stub !== undefined) continue;
      const target = found.find((other) => other !== fn && other.name === callee && other.stub !== undefined);
      if (target?.stub === undefined || EMPTY_BODY.has(target.stub)) continue;
      fn.stub = `it only calls \`${callee}\`, which is a stub (${target.stub.replace(/^it only calls .*?which is a stub \((.*)\)$/, '$1')})`;
      delete fn.specialCases;
      changed = true;
    }
  }
}

/** Functions declared in a JS/TS or Python file, with the stub judgement of each body. */
export async function listFunctionBodies(
  fileName: string,
  text: string,
): Promise<FunctionBody[] | undefined> {
  const source = await parseSource(fileName, text);
  if (
    !source ||
    (source.language !== 'javascript' && source.language !== 'typescript' && source.language !== 'python')
  )
    return undefined;
  const found: FunctionBody[] = [];
  const delegates = new Map<FunctionBody, string>();
  if (source.language === 'python') {
    for (const definition of descendants(source.root, 'FunctionDefinition')) {
      const body = definition.getChild('Body');
      const decorators = source.textOf(
        definition.parent?.name === 'DecoratedStatement' ? definition.parent : null,
      );
      const abstract = /@(?:abc\.)?abstract|@overload|@property/.test(decorators);
      const params = paramNames(source, definition.getChild('ParamList'));
      const stub = abstract ? undefined : judgeBody(source, statements(body), params, true);
      const specialCases =
        abstract || stub !== undefined ? undefined : specialCasesOf(source, statements(body), params, true);
      const fn: FunctionBody = {
        name: source.textOf(definition.getChild('VariableName')),
        line: source.lineOf(definition),
        body: source.textOf(body),
        stub,
        ...(specialCases ? { specialCases } : {}),
      };
      found.push(fn);
      const callee = abstract ? undefined : delegateOf(source, statements(body));
      if (callee !== undefined) delegates.set(fn, callee);
    }
    passStubsOn(found, delegates);
    return found;
  }
  const add = (name: string, at: SyntaxNode, fn: SyntaxNode) => {
    const block = fn.getChild('Block');
    const params = paramNames(source, fn.getChild('ParamList'));
    const expression = block
      ? undefined
      : statements(fn)
          .filter((child) => !['ParamList', 'TypeAnnotation', 'async', 'TypeParamList'].includes(child.name))
          .at(-1);
    let stub: string | undefined;
    let specialCases: SpecialCases | undefined;
    if (block) stub = judgeBody(source, statements(block), params, false);
    else if (expression) stub = returnedStub(source, expression, params);
    if (stub === undefined && params.length > 0) {
      if (block) specialCases = specialCasesOf(source, statements(block), params, false);
      else if (expression) {
        const cases = { inputs: [] as string[], outputs: [] as string[] };
        const otherwise = conditionalAnswer(source, expression, params, false, cases);
        if (otherwise !== undefined && cases.inputs.length > 0) specialCases = { ...cases, otherwise };
      }
    }
    const entry: FunctionBody = {
      name,
      line: source.lineOf(at),
      body: source.textOf(block ?? expression ?? fn),
      stub,
      ...(specialCases ? { specialCases } : {}),
    };
    found.push(entry);
    const callee = block
      ? delegateOf(source, statements(block))
      : expression
        ? delegateOf(source, [expression])
        : undefined;
    if (callee !== undefined) delegates.set(entry, callee);
  };
  for (const node of descendants(
    source.root,
    'FunctionDeclaration',
    'MethodDeclaration',
    'VariableDeclaration',
    'Property',
  )) {
    if (node.name === 'FunctionDeclaration') {
      add(source.textOf(node.getChild('VariableDefinition')), node, node);
    } else if (node.name === 'MethodDeclaration') {
      // Abstract and overload signatures have no body.
      if (!node.getChild('Block')) continue;
      add(source.textOf(node.getChild('PropertyDefinition')), node, node);
    } else {
      const children = statements(node);
      children.forEach((child, index) => {
        if (child.name !== 'ArrowFunction' && child.name !== 'FunctionExpression') return;
        const holder = children
          .slice(0, index)
          .reverse()
          .find(
            (candidate) => candidate.name === 'VariableDefinition' || candidate.name === 'PropertyDefinition',
          );
        if (holder) add(source.textOf(holder), node, child);
      });
    }
  }
  passStubsOn(found, delegates);
  return found;
}

/**
 * Why the function declared at `line` of a file is a stub (body-based: empty, only `pass`/`...`,
 * only a "not implemented" throw, or a constant return that ignores its arguments), if it is one.
 */
export async function stubBodyAt(
  fileName: string,
  text: string,
  line: number,
  options: { emptyIsStub?: boolean } = {},
): Promise<string | undefined> {
  const bodies = await listFunctionBodies(fileName, text);
  const stub = bodies?.find((fn) => fn.line === line)?.stub;
  if (stub !== undefined && options.emptyIsStub === false && EMPTY_BODY.has(stub)) return undefined;
  return stub;
}

/**
 * The step's description asks for placeholders on purpose (stubs, no-ops, skeletons) — not when
 * the placeholder is what the step was asked to replace ("Fill in the `slugify` stub", "Implement
 * the stubbed `daysIn`", "Replace the TODO in `total`"): that asks for the real body.
 */
export const PLACEHOLDERS_ASKED =
  /(?<!\b(?:fill(?:\s+in|\s+out)?|implement|replace|complete|finish|flesh\s+out|write\s+the\s+body\s+of|turn)\s+(?:(?:the|this|that|these|those|its|a|an)\s+)?(?:[\w`'"().,$-]+\s+){0,3})\b(?:stubs?|stubbed|placeholders?|skeletons?|scaffold\w*|signatures?|interfaces?|abstract|no-?ops?|dummy|mock\w*|fakes?|always\s+returns?|constant|todo|identity|pass-?through|unchanged)\b|桩|骨架|占位|スタブ|雛形/iu;

/** Top-level calls that end the process before the tests in a test file run. */
export async function exitsBeforeTests(fileName: string, text: string): Promise<string | undefined> {
  const source = await parseSource(fileName, text);
  if (!source) return undefined;
  for (const statement of statements(source.root)) {
    if (statement.name !== 'ExpressionStatement') continue;
    const call = statements(statement)[0];
    if (call?.name !== 'CallExpression') continue;
    const callee = source.textOf(call.firstChild);
    if (/^(?:process\.(?:exit|kill|abort)|sys\.exit|os\._exit|os\.abort|exit|quit|Deno\.exit)$/.test(callee))
      return source.textOf(statement).slice(0, 60);
    if (/^pytest\.skip$/.test(callee) && /allow_module_level\s*=\s*True/.test(source.textOf(call)))
      return source.textOf(statement).slice(0, 60);
  }
  return undefined;
}

/**
 * Python test functions the runner collects: `test*` functions at the top level and `test*`
 * methods of top-level `Test*` classes (not ones hidden under `if __name__ == "__main__":`).
 */
export async function collectedPythonTests(fileName: string, text: string): Promise<Set<string> | undefined> {
  if (!/\.py$/.test(fileName)) return undefined;
  const source = await parseSource(fileName, text);
  if (!source) return undefined;
  const names = new Set<string>();
  const definitionOf = (node: SyntaxNode) =>
    node.name === 'DecoratedStatement'
      ? (node.getChild('FunctionDefinition') ?? node.getChild('ClassDefinition'))
      : node;
  for (const top of statements(source.root).map(definitionOf)) {
    if (!top) continue;
    const name = source.textOf(top.getChild('VariableName'));
    if (top.name === 'FunctionDefinition' && /^test/.test(name)) names.add(name);
    if (top.name === 'ClassDefinition' && /^Test/.test(name))
      for (const member of statements(top.getChild('Body')).map(definitionOf)) {
        const method = member ? source.textOf(member.getChild('VariableName')) : '';
        if (member?.name === 'FunctionDefinition' && /^test/.test(method)) names.add(`${name}.${method}`);
      }
  }
  return names;
}
