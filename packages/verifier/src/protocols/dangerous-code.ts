import {
  type CodeLanguage,
  childGroups,
  childrenOf,
  codeLanguageOf,
  descendants,
  parseSource,
  type SourceTree,
  type SyntaxNode,
} from '../code-parser';
import type { Priority } from '../finding';
import type { AddedLine } from './added-lines';

/** A dangerous construct found in a changed file. */
export interface DangerHit {
  file: string;
  /** 1-based line. */
  line: number;
  /** `code-execution`, `shell-injection`, `tls-disabled`, `sql-injection`, `destructive-command`… */
  rule: string;
  message: string;
  /** P1 for constructs that are dangerous as written, P2 for risky ones that need a look. */
  priority: Priority;
  /** The line (trimmed, capped). */
  excerpt: string;
}

type Family = 'script' | 'python' | 'go' | 'rust' | 'java';

const FAMILY: Partial<Record<CodeLanguage, Family>> = {
  javascript: 'script',
  typescript: 'script',
  tsx: 'script',
  python: 'python',
  go: 'go',
  rust: 'rust',
  java: 'java',
};

const STRING_TYPES: ReadonlySet<string> = new Set([
  'String',
  'TemplateString',
  'FormatString',
  'ContinuedString',
  'RawString',
  'StringLiteral',
  'TextBlock',
  'CharacterLiteral',
  'Character',
  'Char',
]);
const SUBSTITUTIONS = ['Interpolation', 'FormatReplacement'];
const CALLS: ReadonlySet<string> = new Set([
  'CallExpression',
  'CallExpr',
  'NewExpression',
  'MethodInvocation',
  'ObjectCreationExpression',
  'MacroInvocation',
]);
const ARGUMENT_LISTS: ReadonlySet<string> = new Set([
  'ArgList',
  'Arguments',
  'ArgumentList',
  'ParenthesizedTokens',
  'BracketedTokens',
  'BracedTokens',
]);

/** True when a node is a constant string: no substitution, no variable. */
function isConstantString(node: SyntaxNode | undefined): boolean {
  if (!node) return true;
  if (!STRING_TYPES.has(node.name)) return false;
  return descendants(node, ...SUBSTITUTIONS).length === 0;
}

const SQL =
  /\b(?:select\s[\s\S]*\bfrom|insert\s+into|update\s+\w+\s+set|delete\s+from|drop\s+table|where\s+\w+\s*=)/i;
const FORMAT_CALLS = /(?:^|\.)(?:format|Sprintf|sprintf|format!|String\.format)$/;
const SQL_METHODS =
  /(?:^|\.)(?:query|execute|executemany|executescript|exec|raw|prepare|run|all|get|Query|QueryRow|QueryContext|QueryRowContext|Exec|ExecContext|executeQuery|executeUpdate|prepareStatement|createQuery|createNativeQuery|unsafe)$/;

/** One argument of a call: its value, and its name for a Python keyword argument. */
interface Argument {
  name?: string;
  value: SyntaxNode;
}

interface Hit {
  node: SyntaxNode;
  rule: string;
  message: string;
  priority: Priority;
}

/** Reads one file's tree for dangerous constructs. */
class DangerReader {
  constructor(
    readonly source: SourceTree,
    readonly family: Family,
  ) {}

  text(node: SyntaxNode | null | undefined): string {
    return this.source.textOf(node);
  }

  /** `os.system`, `child_process.exec`, `Runtime.getRuntime().exec`, `format!`: the callee as written. */
  calleeName(call: SyntaxNode): string {
    if (call.name === 'MacroInvocation') return `${this.text(call.firstChild)}!`;
    const list = childrenOf(call).find((child) => ARGUMENT_LISTS.has(child.name));
    let from = call.from;
    const first = call.firstChild;
    if (first?.name === 'new') from = first.to;
    return this.source.text.slice(from, list?.from ?? call.to).replace(/\s+/g, '');
  }

  callArguments(call: SyntaxNode): Argument[] {
    const list = childrenOf(call).find((child) => ARGUMENT_LISTS.has(child.name));
    if (!list) return [];
    return childGroups(list).flatMap((group): Argument[] => {
      const [first, second, third] = group;
      if (!first) return [];
      if (first.name === 'VariableName' && second?.name === 'AssignOp' && third)
        return [{ name: this.text(first), value: third }];
      return [{ value: first }];
    });
  }

  keywordArgument(call: SyntaxNode, name: string): SyntaxNode | undefined {
    return this.callArguments(call).find((argument) => argument.name === name)?.value;
  }

  /** True when a node builds a string from a constant SQL part and something variable. */
  isDynamicSql(node: SyntaxNode | undefined): boolean {
    if (!node || !SQL.test(this.text(node))) return false;
    if (node.name === 'BinaryExpression' || node.name === 'BinaryExp') {
      const operator = this.text(node.getChild('ArithOp'));
      if (operator !== '+' && operator !== '%') return false;
      const left = node.firstChild ?? undefined;
      const right = node.lastChild ?? undefined;
      return !(isConstantString(left) && isConstantString(right));
    }
    if (STRING_TYPES.has(node.name)) return !isConstantString(node);
    if (CALLS.has(node.name)) {
      const callee = this.calleeName(node);
      return FORMAT_CALLS.test(callee) || callee.endsWith('.format');
    }
    return false;
  }

  checkCall(call: SyntaxNode): Hit[] {
    const hits: Hit[] = [];
    const family = this.family;
    const callee = this.calleeName(call);
    const args = this.callArguments(call).filter((argument) => argument.name === undefined);
    const first = args[0]?.value;
    const hit = (rule: string, message: string, priority: Priority = 'P1') =>
      hits.push({ node: call, rule, message, priority });

    // Code execution from a value that is not a constant (`new Function(a, b, body)`: any argument).
    if (
      callee === 'Function' &&
      family === 'script' &&
      args.some((argument) => !isConstantString(argument.value))
    )
      hit('code-execution', 'new Function() runs code built from a variable value');
    else if (
      ((family === 'script' && callee === 'eval') ||
        (family === 'python' && (callee === 'eval' || callee === 'exec'))) &&
      first !== undefined &&
      !isConstantString(first)
    ) {
      hit('code-execution', `${callee}() runs code built from a variable value`);
    }

    // Shell commands built from variable values.
    if (family === 'script') {
      const viaChildProcess =
        /(?:^|\.)(?:exec|execSync)$/.test(callee) &&
        (/(?:child_process|childProcess|^cp)\./.test(callee) ||
          (!callee.includes('.') && /child_process/.test(this.source.text)));
      if (viaChildProcess && first !== undefined && !isConstantString(first))
        hit('shell-injection', `${callee}() runs a shell command built from a variable value`);
    } else if (family === 'python') {
      if (/^os\.(?:system|popen)$|^commands\.getoutput$/.test(callee) && first && !isConstantString(first))
        hit('shell-injection', `${callee}() runs a shell command built from a variable value`);
      if (/^subprocess\./.test(callee) && this.text(this.keywordArgument(call, 'shell')) === 'True')
        hit(
          'shell-injection',
          `${callee}(…, shell=True) runs through a shell`,
          first && !isConstantString(first) ? 'P1' : 'P2',
        );
      if (this.text(this.keywordArgument(call, 'verify')) === 'False')
        hit('tls-disabled', `${callee}(…, verify=False) turns off TLS certificate verification`);
      if (/(?:^|\.)_create_unverified_context$/.test(callee))
        hit('tls-disabled', 'ssl._create_unverified_context() turns off TLS certificate verification');
      if (/^(?:pickle|cPickle|marshal)\.loads?$/.test(callee))
        hit('unsafe-deserialization', `${callee}() can run code from the data it reads`, 'P2');
      if (
        /^yaml\.load$/.test(callee) &&
        !/^(?:yaml\.)?(?:Safe|Base)Loader$/.test(
          this.text(this.keywordArgument(call, 'Loader')).replace(/\s+/g, ''),
        )
      )
        hit('unsafe-deserialization', 'yaml.load() without a safe Loader can build arbitrary objects', 'P2');
    } else if (family === 'go') {
      if (
        /(?:^|\.)Command(?:Context)?$/.test(callee) &&
        args.some((argument) => this.text(argument.value) === '"-c"') &&
        args.some((argument) => !isConstantString(argument.value))
      )
        hit('shell-injection', `${callee}(…, "-c", …) runs a shell command built from a variable value`);
    } else if (family === 'java') {
      if (/(?:^|\.)getRuntime\(\)\.exec$/.test(callee) && first && !isConstantString(first))
        hit('shell-injection', 'Runtime.exec() runs a command built from a variable value');
    } else if (family === 'rust') {
      if (/(?:^|\.)danger_accept_invalid_(?:certs|hostnames)$/.test(callee) && this.text(first) === 'true')
        hit('tls-disabled', `${callee.split('.').pop()}(true) turns off TLS certificate verification`);
    }

    // SQL text built by concatenation or formatting instead of parameters.
    if (SQL_METHODS.test(callee) && this.isDynamicSql(first))
      hit('sql-injection', `${callee}() gets SQL built from variable values; pass them as query parameters`);
    return hits;
  }

  checkNode(node: SyntaxNode): Hit[] {
    const one = (rule: string, message: string): Hit[] => [{ node, rule, message, priority: 'P1' }];
    if (CALLS.has(node.name)) return this.checkCall(node);
    switch (node.name) {
      case 'Property': {
        // `{ rejectUnauthorized: false }`, `{ strictSSL: false }` (Node https/tls, request).
        const key = this.text(node.firstChild).replace(/["']/g, '');
        const value = this.text(node.lastChild);
        if ((key === 'rejectUnauthorized' || key === 'strictSSL') && value === 'false')
          return one('tls-disabled', `${key}: false turns off TLS certificate verification`);
        return [];
      }
      case 'AssignmentExpression':
      case 'AssignStatement': {
        const left = this.text(node.firstChild);
        const right = this.text(node.lastChild).replace(/["']/g, '');
        if (/NODE_TLS_REJECT_UNAUTHORIZED/.test(left) && right === '0')
          return one(
            'tls-disabled',
            'NODE_TLS_REJECT_UNAUTHORIZED = 0 turns off TLS verification for the process',
          );
        if (/\.check_hostname$/.test(left) && right === 'False')
          return one('tls-disabled', 'check_hostname = False turns off TLS host name verification');
        if (/\.verify_mode$/.test(left) && /CERT_NONE$/.test(right))
          return one('tls-disabled', 'verify_mode = CERT_NONE turns off TLS certificate verification');
        return [];
      }
      case 'Element': {
        // Go: `&tls.Config{InsecureSkipVerify: true}`
        if (this.text(node.getChild('Key')) === 'InsecureSkipVerify' && this.text(node.lastChild) === 'true')
          return one('tls-disabled', 'InsecureSkipVerify: true turns off TLS certificate verification');
        return [];
      }
      default:
        return [];
    }
  }
}

/** Shell commands that destroy a machine or run code from the network, in any text file. */
const COMMAND_RULES: { pattern: RegExp; rule: string; message: string; priority: Priority }[] = [
  {
    pattern:
      /\brm\s+(?:-[a-zA-Z]*(?:rf|fr)[a-zA-Z]*|-[a-zA-Z]*r\s+-[a-zA-Z]*f|-[a-zA-Z]*f\s+-[a-zA-Z]*r|--recursive\s+--force|--force\s+--recursive)\s+(?:--no-preserve-root\s+)?(?:\/\*?|~\/?\*?|"?\$HOME"?\/?\*?|\/(?:bin|boot|etc|home|lib|opt|root|sbin|srv|usr|var)\/?)(?=$|[\s"'`;&|)])/,
    rule: 'destructive-command',
    message: 'recursive forced delete of /, ~ or a system folder',
    priority: 'P1',
  },
  {
    pattern:
      /\b(?:mkfs(?:\.\w+)?\s+\/dev\/|dd\s+[^\n]*\bof=\/dev\/(?:sd|nvme|hd|xvd|disk)|:\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:)/,
    rule: 'destructive-command',
    message: 'formats or overwrites a disk, or is a fork bomb',
    priority: 'P1',
  },
  {
    pattern: /\b(?:curl|wget)\b[^|\n]*\|\s*(?:sudo\s+)?(?:ba|z|da)?sh\b/,
    rule: 'remote-code',
    message: 'pipes a download straight into a shell',
    priority: 'P2',
  },
  {
    pattern: /\bchmod\s+(?:-R\s+)?0?777\b/,
    rule: 'world-writable',
    message: 'makes files world-writable (chmod 777)',
    priority: 'P2',
  },
];

const COMMENT_LINE = /^\s*(?:#|\/\/|--|;|\*|\/\*|<!--|rem\s)/i;
const DOC_FILE = /\.(?:md|mdx|markdown|rst|adoc|txt)$/i;

/**
 * Dangerous constructs on the added lines of one changed file. Code (JS/TS, Python, Go, Rust,
 * Java) is read from its syntax tree, so text in comments and constant strings is not code:
 * `eval`/`exec`/`new Function` of a variable value, shell commands built from variable values
 * (`child_process.exec`, `os.system`, `subprocess` with `shell=True`, `sh -c`, `Runtime.exec`),
 * TLS verification turned off (`rejectUnauthorized: false`, `verify=False`,
 * `InsecureSkipVerify`, `NODE_TLS_REJECT_UNAUTHORIZED=0`, `danger_accept_invalid_certs`), SQL
 * built by concatenation or formatting, unsafe deserialization (P2). Any non-documentation file
 * is also searched for destructive shell commands (`rm -rf /`, `mkfs`, fork bombs), downloads
 * piped into a shell and `chmod 777` (P2), outside comment lines.
 */
export async function findDangerousCode(
  file: string,
  text: string,
  lines: readonly AddedLine[],
): Promise<DangerHit[]> {
  const added = new Map(lines.map((line) => [line.number, line.line]));
  const hits: DangerHit[] = [];
  const push = (line: number, rule: string, message: string, priority: Priority) => {
    if (hits.some((hit) => hit.line === line && hit.rule === rule)) return;
    hits.push({ file, line, rule, message, priority, excerpt: (added.get(line) ?? '').trim().slice(0, 200) });
  };
  const language = codeLanguageOf(file);
  const family = language === undefined ? undefined : FAMILY[language];
  const source = family !== undefined && lines.length > 0 ? await parseSource(file, text) : undefined;
  if (source && family) {
    const reader = new DangerReader(source, family);
    source.tree.iterate({
      enter: (ref) => {
        const line = source.position(ref.from).line;
        const last = source.position(ref.to).line;
        // Only subtrees that touch an added line.
        let touches = false;
        for (let row = line; row <= last && !touches; row += 1) touches = added.has(row);
        if (!touches) return false;
        if (added.has(line))
          for (const found of reader.checkNode(ref.node))
            push(source.lineOf(found.node), found.rule, found.message, found.priority);
        return undefined;
      },
    });
  }
  if (!DOC_FILE.test(file)) {
    for (const { line, number } of lines) {
      if (line.length > 5000 || COMMENT_LINE.test(line)) continue;
      for (const rule of COMMAND_RULES)
        if (rule.pattern.test(line)) push(number, rule.rule, rule.message, rule.priority);
    }
  }
  return hits.sort((a, b) => a.line - b.line);
}
