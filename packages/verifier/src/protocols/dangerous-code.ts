import { type CodeLanguage, codeLanguageOf, type SyntaxNode, withSyntaxTree } from '../code-parser';
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

const field = (node: SyntaxNode, name: string): SyntaxNode | undefined =>
  node.childForFieldName(name) ?? undefined;
const named = (node: SyntaxNode): SyntaxNode[] => node.namedChildren.filter((child) => child !== null);

const STRING_TYPES = new Set([
  'string',
  'template_string',
  'interpreted_string_literal',
  'raw_string_literal',
  'string_literal',
  'concatenated_string',
  'character_literal',
]);
const SUBSTITUTIONS = ['template_substitution', 'interpolation', 'string_interpolation'];

/** True when a node is a constant string: no substitution, no variable. */
function isConstantString(node: SyntaxNode | undefined): boolean {
  if (!node) return true;
  if (!STRING_TYPES.has(node.type)) return false;
  return node.descendantsOfType(SUBSTITUTIONS).length === 0;
}

const SQL =
  /\b(?:select\s[\s\S]*\bfrom|insert\s+into|update\s+\w+\s+set|delete\s+from|drop\s+table|where\s+\w+\s*=)/i;
const FORMAT_CALLS = /(?:^|\.)(?:format|Sprintf|sprintf|format!|String\.format)$/;

/** True when a node builds a string from a constant SQL part and something variable. */
function isDynamicSql(node: SyntaxNode | undefined): boolean {
  if (!node || !SQL.test(node.text)) return false;
  switch (node.type) {
    case 'binary_expression':
    case 'binary_operator': {
      const operator = node.children.find((child) => child && !child.isNamed)?.text;
      if (operator !== '+' && operator !== '%') return false;
      return !(isConstantString(field(node, 'left')) && isConstantString(field(node, 'right')));
    }
    case 'template_string':
    case 'string':
      return !isConstantString(node);
    case 'call':
    case 'call_expression':
    case 'method_invocation':
    case 'macro_invocation': {
      const callee = calleeName(node);
      return FORMAT_CALLS.test(callee) || callee.endsWith('.format');
    }
    default:
      return false;
  }
}

/** `os.system`, `child_process.exec`, `Runtime.getRuntime().exec`: the callee as written. */
function calleeName(call: SyntaxNode): string {
  if (call.type === 'method_invocation') {
    const object = field(call, 'object')?.text;
    const name = field(call, 'name')?.text ?? '';
    return object ? `${object}.${name}` : name;
  }
  if (call.type === 'macro_invocation') return `${field(call, 'macro')?.text ?? ''}!`;
  return (field(call, 'function') ?? field(call, 'constructor'))?.text.replace(/\s+/g, '') ?? '';
}

function callArguments(call: SyntaxNode): SyntaxNode[] {
  const list = field(call, 'arguments');
  return list ? named(list).filter((node) => node.type !== 'comment') : [];
}

function keywordArgument(call: SyntaxNode, name: string): SyntaxNode | undefined {
  for (const argument of callArguments(call)) {
    if (argument.type === 'keyword_argument' && field(argument, 'name')?.text === name)
      return field(argument, 'value');
  }
  return undefined;
}

const SQL_METHODS =
  /(?:^|\.)(?:query|execute|executemany|executescript|exec|raw|prepare|run|all|get|Query|QueryRow|QueryContext|QueryRowContext|Exec|ExecContext|executeQuery|executeUpdate|prepareStatement|createQuery|createNativeQuery|unsafe)$/;

interface Hit {
  node: SyntaxNode;
  rule: string;
  message: string;
  priority: Priority;
}

function checkCall(call: SyntaxNode, family: Family, fileText: string): Hit[] {
  const hits: Hit[] = [];
  const callee = calleeName(call);
  const args = callArguments(call);
  const first = args[0];
  const hit = (rule: string, message: string, priority: Priority = 'P1') =>
    hits.push({ node: call, rule, message, priority });

  // Code execution from a value that is not a constant (`new Function(a, b, body)`: any argument).
  if (callee === 'Function' && family === 'script' && args.some((arg) => !isConstantString(arg)))
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
        (!callee.includes('.') && /child_process/.test(fileText)));
    if (viaChildProcess && first !== undefined && !isConstantString(first))
      hit('shell-injection', `${callee}() runs a shell command built from a variable value`);
  } else if (family === 'python') {
    if (/^os\.(?:system|popen)$|^commands\.getoutput$/.test(callee) && first && !isConstantString(first))
      hit('shell-injection', `${callee}() runs a shell command built from a variable value`);
    if (/^subprocess\./.test(callee) && keywordArgument(call, 'shell')?.text === 'True')
      hit(
        'shell-injection',
        `${callee}(…, shell=True) runs through a shell`,
        first && !isConstantString(first) ? 'P1' : 'P2',
      );
    if (keywordArgument(call, 'verify')?.text === 'False')
      hit('tls-disabled', `${callee}(…, verify=False) turns off TLS certificate verification`);
    if (/(?:^|\.)_create_unverified_context$/.test(callee))
      hit('tls-disabled', 'ssl._create_unverified_context() turns off TLS certificate verification');
    if (/^(?:pickle|cPickle|marshal)\.loads?$/.test(callee))
      hit('unsafe-deserialization', `${callee}() can run code from the data it reads`, 'P2');
    if (/^yaml\.load$/.test(callee) && !/Loader\s*=\s*(?:yaml\.)?(?:Safe|Base)Loader/.test(call.text))
      hit('unsafe-deserialization', 'yaml.load() without a safe Loader can build arbitrary objects', 'P2');
  } else if (family === 'go') {
    if (
      /(?:^|\.)Command(?:Context)?$/.test(callee) &&
      args.some((arg) => arg.text === '"-c"') &&
      args.some((arg) => !isConstantString(arg))
    )
      hit('shell-injection', `${callee}(…, "-c", …) runs a shell command built from a variable value`);
  } else if (family === 'java') {
    if (/(?:^|\.)getRuntime\(\)\.exec$/.test(callee) && first && !isConstantString(first))
      hit('shell-injection', 'Runtime.exec() runs a command built from a variable value');
  } else if (family === 'rust') {
    if (/(?:^|\.)danger_accept_invalid_(?:certs|hostnames)$/.test(callee) && first?.text === 'true')
      hit('tls-disabled', `${callee.split('.').pop()}(true) turns off TLS certificate verification`);
  }

  // SQL text built by concatenation or formatting instead of parameters.
  if (SQL_METHODS.test(callee) && isDynamicSql(first))
    hit('sql-injection', `${callee}() gets SQL built from variable values; pass them as query parameters`);
  return hits;
}

function checkNode(node: SyntaxNode, family: Family, fileText: string): Hit[] {
  switch (node.type) {
    case 'call_expression':
    case 'call':
    case 'method_invocation':
    case 'new_expression':
      return checkCall(node, family, fileText);
    case 'pair': {
      // `{ rejectUnauthorized: false }`, `{ strictSSL: false }` (Node https/tls, request).
      const key = field(node, 'key')?.text.replace(/["']/g, '');
      const value = field(node, 'value')?.text;
      if ((key === 'rejectUnauthorized' || key === 'strictSSL') && value === 'false')
        return [
          {
            node,
            rule: 'tls-disabled',
            message: `${key}: false turns off TLS certificate verification`,
            priority: 'P1',
          },
        ];
      return [];
    }
    case 'assignment_expression':
    case 'assignment': {
      const left = field(node, 'left')?.text ?? '';
      const right = field(node, 'right')?.text.replace(/["']/g, '');
      if (/NODE_TLS_REJECT_UNAUTHORIZED/.test(left) && right === '0')
        return [
          {
            node,
            rule: 'tls-disabled',
            message: 'NODE_TLS_REJECT_UNAUTHORIZED = 0 turns off TLS verification for the process',
            priority: 'P1',
          },
        ];
      if (/\.check_hostname$/.test(left) && right === 'False')
        return [
          {
            node,
            rule: 'tls-disabled',
            message: 'check_hostname = False turns off TLS host name verification',
            priority: 'P1',
          },
        ];
      if (/\.verify_mode$/.test(left) && /CERT_NONE$/.test(right ?? ''))
        return [
          {
            node,
            rule: 'tls-disabled',
            message: 'verify_mode = CERT_NONE turns off TLS certificate verification',
            priority: 'P1',
          },
        ];
      return [];
    }
    case 'keyed_element': {
      const [key, value] = named(node);
      if (key?.text === 'InsecureSkipVerify' && value?.text === 'true')
        return [
          {
            node,
            rule: 'tls-disabled',
            message: 'InsecureSkipVerify: true turns off TLS certificate verification',
            priority: 'P1',
          },
        ];
      return [];
    }
    default:
      return [];
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
  if (family !== undefined && lines.length > 0) {
    const found =
      (await withSyntaxTree(file, text, (root) => {
        const results: { line: number; rule: string; message: string; priority: Priority }[] = [];
        const cursor = root.walk();
        let visiting = true;
        while (visiting) {
          const node = cursor.currentNode;
          const line = node.startPosition.row + 1;
          const spans = node.endPosition.row + 1;
          let descend = true;
          // Only subtrees that touch an added line.
          let touches = false;
          for (let row = line; row <= spans && !touches; row += 1) touches = added.has(row);
          if (!touches) descend = false;
          else if (added.has(line)) {
            for (const found of checkNode(node, family, text))
              results.push({
                line: found.node.startPosition.row + 1,
                rule: found.rule,
                message: found.message,
                priority: found.priority,
              });
          }
          if (descend && cursor.gotoFirstChild()) continue;
          while (!cursor.gotoNextSibling()) {
            if (!cursor.gotoParent()) {
              visiting = false;
              break;
            }
          }
        }
        cursor.delete();
        return results;
      })) ?? [];
    for (const item of found) push(item.line, item.rule, item.message, item.priority);
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
