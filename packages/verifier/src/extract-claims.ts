import type { StepClaims } from '@closedloop/plan';
import type { SymbolKind } from './find-symbol';

/** Where a claim came from: the step's structured claims, or its notes text. */
export type ClaimSource = 'claims' | 'notes';

/** A checkable statement a step made about its own effects. */
export type Claim =
  | {
      kind: 'file-written';
      file: string;
      /** `created` / `modified` when the wording says so; `written` for structured claims. */
      action: 'created' | 'modified' | 'written';
      source: ClaimSource;
      text: string;
    }
  | { kind: 'file-deleted'; file: string; source: ClaimSource; text: string }
  | {
      kind: 'symbol-added';
      name: string;
      file?: string;
      symbolKind: SymbolKind;
      source: ClaimSource;
      text: string;
    }
  | { kind: 'command-passed'; argv: string[]; source: ClaimSource; text: string }
  | {
      kind: 'check-passed';
      /** A passing test suite / build / typecheck / lint, with no command given: the verifier detects it. */
      check: 'test' | 'build' | 'typecheck' | 'lint';
      source: ClaimSource;
      text: string;
    };

const KNOWN_EXTENSIONS = new Set(
  (
    'ts tsx mts cts js jsx mjs cjs json jsonc md mdx txt py pyi go rs java kt kts scala c h cc cpp hpp cs rb php ' +
    'swift m sh bash zsh ps1 yml yaml toml ini cfg conf env lock css scss sass less html htm vue svelte astro sql ' +
    'graphql gql proto xml csv tsv svg png jpg jpeg gif webp ico pdf wasm v sv vhd lua dart ex exs erl hs ml r jl ' +
    'tf hcl gradle properties prisma ipynb rst adoc tex log snap'
  ).split(' '),
);
const KNOWN_BARE_FILES = new Set([
  'Dockerfile',
  'Makefile',
  'Procfile',
  'Gemfile',
  'Rakefile',
  'Justfile',
  'Containerfile',
]);
const NOT_FILES = new Set(
  'node.js next.js vue.js nuxt.js express.js react.js three.js chart.js d3.js deno.js bun.js ember.js backbone.js angular.js alpine.js p5.js socket.io e.g i.e etc.'.split(
    ' ',
  ),
);

/** A path-looking token: optional dirs, a name, and an extension starting with a letter. */
const PATH_TOKEN =
  /(?<![\w@/.\-:])((?:\.{1,2}\/)?(?:[\w@\-.]+\/)*(?:[\w@\-.]*[\w-]\.[A-Za-z][A-Za-z0-9]{0,9}|\.[A-Za-z][\w.-]*|Dockerfile|Makefile|Procfile|Gemfile|Rakefile|Justfile|Containerfile))(?![\w/]|\.[A-Za-z])/g;

function isFileToken(token: string): boolean {
  const file = token.replace(/^\.\//, '');
  if (NOT_FILES.has(file.toLowerCase())) return false;
  const base = file.split('/').pop() ?? file;
  if (KNOWN_BARE_FILES.has(base)) return true;
  if (/^\d+(\.\d+)+$/.test(file)) return false;
  if (base.startsWith('.') && !base.slice(1).includes('.')) {
    // Dotfiles: `.gitignore`, `.env`, `.eslintrc`…
    return /^\.(?:gitignore|gitattributes|env|npmrc|nvmrc|prettierrc|prettierignore|eslintrc|eslintignore|editorconfig|dockerignore|babelrc|browserslistrc)$/.test(
      base,
    );
  }
  const extension = /\.([A-Za-z][A-Za-z0-9]*)$/.exec(base)?.[1]?.toLowerCase();
  if (extension === undefined) return false;
  return KNOWN_EXTENSIONS.has(extension) || (file.includes('/') && !file.startsWith('/'));
}

/** File paths mentioned in a piece of text (backticked, quoted or bare), in order. */
export function findPaths(text: string): { file: string; index: number }[] {
  const found: { file: string; index: number }[] = [];
  PATH_TOKEN.lastIndex = 0;
  for (let match = PATH_TOKEN.exec(text); match !== null; match = PATH_TOKEN.exec(text)) {
    const token = (match[1] ?? '').replace(/[.,;:]+$/, '');
    const before = text.slice(Math.max(0, match.index - 3), match.index);
    if (before.endsWith('://') || /\w:\/\/$/.test(before)) continue;
    if (isFileToken(token)) found.push({ file: token.replace(/^\.\//, ''), index: match.index });
  }
  return found;
}

const EN_CREATE =
  'created|wrote|written|added|generated|scaffolded|saved|introduced|implemented|defined|exported|imported';
const EN_MODIFY =
  'modified|updated|edited|changed|patched|fixed|refactored|rewrote|rewritten|adjusted|touched|amended';
const EN_DELETE = 'deleted|removed|erased';
const ZH_CREATE =
  '新增|创建|創建|建立|新建|写入|寫入|写了|寫了|生成|添加|加入|增加|实作|實作|实现|實現|定义|定義|编写|編寫|撰写|撰寫';
const ZH_MODIFY = '修改|更新|编辑|編輯|调整|調整|修复|修復|修正|重构|重構|改写|改寫|改动|改動';
const ZH_DELETE = '删除|刪除|移除|删掉|刪掉';

type VerbCategory = 'create' | 'modify' | 'delete';

const VERB = new RegExp(
  `\\b(?<enCreate>${EN_CREATE})\\b|\\b(?<enModify>${EN_MODIFY})\\b|\\b(?<enDelete>${EN_DELETE})\\b|(?<zhCreate>${ZH_CREATE})了?|(?<zhModify>${ZH_MODIFY})了?|(?<zhDelete>${ZH_DELETE})了?`,
  'gi',
);

const EN_NEGATION =
  /\b(?:not|never|no|unable|cannot|can't|couldn't|could not|didn't|did not|wasn't|weren't|won't|will|would|should|must|need to|needs to|plan to|planned to|going to|try to|tried to|trying to|attempt to|attempted to|failed to|fail to|about to|want to|wanted to|if|whether|without)\b[^,;]*$/i;
const ZH_NEGATION =
  /(?:未|没有|沒有|没|沒|无法|無法|不能|未能|尚未|还没|還沒|打算|准备|準備|需要|将要|將要|尝试|嘗試|失败|失敗|不)\s*(?:已经?|已經)?\s*$/;
const CLAUSE_BOUNDARY =
  /(?:,|，|、|\band\b|\bbut\b|\bthen\b|然后|然後|并且|並且|并|並|但|且)(?![^,，、]*$)/gi;
const SEGMENT_STOP =
  /\b(?:because|since|so that|which|while|but|although|so|as|after|before|when|until|then)\b|因为|因為|但是|但|所以|以便|然后|然後|之后|之後/i;
const PREPOSITION = /\b(?:to|in|into|inside|within|on|at|of|from|for|under)\b|到|至|于|於/i;

const KIND_WORDS: Record<string, SymbolKind> = {
  function: 'function',
  method: 'function',
  helper: 'function',
  class: 'class',
  interface: 'interface',
  type: 'type',
  'type alias': 'type',
  enum: 'type',
  const: 'variable',
  constant: 'variable',
  variable: 'variable',
  export: 'export',
  exported: 'export',
  import: 'import',
  函数: 'function',
  函數: 'function',
  方法: 'function',
  类: 'class',
  類: 'class',
  接口: 'interface',
  介面: 'interface',
  类型: 'type',
  類型: 'type',
  型別: 'type',
  变量: 'variable',
  變數: 'variable',
  常量: 'variable',
  常數: 'variable',
};
const KIND_PATTERN =
  'type alias|function|method|helper|class|interface|type|enum|constant|const|variable|exported|export|import|函数|函數|方法|类|類|接口|介面|类型|類型|型別|变量|變數|常量|常數';
const STOP_NAMES = new Set(
  'in to into for from that which the a an of with and on at it its this new file files test tests code support logic'.split(
    ' ',
  ),
);

const SYMBOL_HEAD = new RegExp(
  `^\\s*[:：]?\\s*(?:(?:a|an|the|new|one)\\s+|(?:一个|一個|新的)\\s*)*(?:(?<kind1>${KIND_PATTERN})(?![A-Za-z])\\s*)?(?<quote>[\`'"「]?)(?<name>[A-Za-z_$][\\w$]*(?:\\.[A-Za-z_$][\\w$]*)?)(?<call>\\(\\))?\\k<quote>(?![\\w./])\\s*(?:(?<kind2>${KIND_PATTERN})(?![A-Za-z]))?`,
  'i',
);
const ZH_LOCATION =
  /(?:在|于|於)\s*[`'"「]?([^\s`'"」，,。]+?)[`'"」]?\s*(?:中|里|裡|内|內|的|文件|檔案|第\s*\d+\s*行|\s)*$/;

function isCodeLike(name: string): boolean {
  return (
    /[a-z][A-Z]/.test(name) || name.includes('_') || /^[A-Z][a-z]+[A-Z]/.test(name) || name.includes('.')
  );
}

function splitSentences(text: string): string[] {
  return text
    .split(/(?<=[。；;！？!?\n])|(?<=\.)\s+/)
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence !== '');
}

function clauseTail(prefix: string): string {
  let tail = prefix;
  CLAUSE_BOUNDARY.lastIndex = 0;
  let last = -1;
  for (let match = CLAUSE_BOUNDARY.exec(prefix); match !== null; match = CLAUSE_BOUNDARY.exec(prefix)) {
    last = match.index + match[0].length;
  }
  if (last >= 0) tail = prefix.slice(last);
  return tail;
}

function isNegated(prefix: string): boolean {
  const tail = clauseTail(prefix);
  return EN_NEGATION.test(tail.slice(-60)) || ZH_NEGATION.test(tail.slice(-8));
}

function shorten(text: string): string {
  return text.length > 200 ? `${text.slice(0, 197)}…` : text;
}

/** Splits a command line into argv: whitespace-separated, single/double quotes respected, no expansion. */
export function splitCommandLine(line: string): string[] {
  const argv: string[] = [];
  let current = '';
  let quote: '"' | "'" | undefined;
  let has = false;
  for (const char of line.trim()) {
    if (quote) {
      if (char === quote) quote = undefined;
      else current += char;
    } else if (char === '"' || char === "'") {
      quote = char;
      has = true;
    } else if (/\s/.test(char)) {
      if (has || current !== '') argv.push(current);
      current = '';
      has = false;
    } else {
      current += char;
    }
  }
  if (has || current !== '') argv.push(current);
  return argv;
}

const CHECK_PATTERNS: { check: 'test' | 'build' | 'typecheck' | 'lint'; pattern: RegExp }[] = [
  {
    check: 'test',
    pattern:
      /\b(?:all\s+)?(?:the\s+)?(?:\d+\s+)?(?:unit\s+|existing\s+|new\s+)?tests?(?:\s+suite)?\s+(?:now\s+|still\s+)?(?:are\s+|were\s+|is\s+|have\s+)?(?:all\s+|now\s+|still\s+)?(?:pass|passes|passed|passing|succeed|succeeds|succeeded|green)\b/i,
  },
  {
    check: 'test',
    pattern: /(?:单元|單元)?(?:测试|測試)(?:用例)?\s*(?:已|都|均|全部|皆|全都|已经|已經)*\s*(?:通过|通過)/,
  },
  {
    check: 'typecheck',
    pattern:
      /\bno\s+(?:type|typescript|tsc)\s+errors\b|\btype[\s-]?check(?:s|ing)?\s+(?:now\s+)?(?:passes|passed|is clean|succeeded|succeeds)\b|\btsc\s+(?:passes|passed|is clean|reports no errors)\b/i,
  },
  {
    check: 'typecheck',
    pattern:
      /(?:类型|類型|型別)(?:检查|檢查)\s*(?:已|都)?\s*(?:通过|通過)|(?:没有|沒有)(?:类型|類型|型別)(?:错误|錯誤)/,
  },
  {
    check: 'build',
    pattern:
      /\b(?:the\s+)?build\s+(?:now\s+)?(?:passes|passed|succeeds|succeeded|is green|works)\b|\bbuilds?\s+(?:successfully|cleanly)\b|\bbuilt\s+successfully\b|\bcompiles?\s+(?:successfully|cleanly|without errors)\b/i,
  },
  { check: 'build', pattern: /(?:构建|構建|编译|編譯|建置)\s*(?:已)?\s*(?:通过|通過|成功)/ },
  {
    check: 'lint',
    pattern:
      /\blint(?:ing|er)?\s+(?:now\s+)?(?:passes|passed|is clean|clean|succeeded)\b|\bno\s+lint\s+(?:errors|warnings|issues)\b/i,
  },
  { check: 'lint', pattern: /lint\s*(?:检查)?\s*(?:通过|通過)|(?:代码|代碼)(?:检查|檢查)\s*(?:通过|通過)/i },
];

const COMMAND_PATTERNS: RegExp[] = [
  /`([^`\n]+)`\s*(?:now\s+|still\s+)?(?:passes|passed|succeeds|succeeded|exits?\s+(?:with\s+)?(?:code\s+)?0|exited\s+(?:with\s+)?(?:code\s+)?0|runs?\s+(?:successfully|cleanly|green)|ran\s+successfully|is\s+green|通过|通過|成功|执行成功|執行成功)/gi,
  /\bran\s+`([^`\n]+)`\s*(?:successfully|and\s+it\s+passed|and\s+all\s+tests\s+passed|with\s+exit\s+code\s+0|cleanly)/gi,
  /(?:运行|運行|执行|執行)了?\s*`([^`\n]+)`\s*[，,]?\s*(?:成功|通过|通過|全部通过|全部通過)/g,
];

function commandClaims(sentence: string): Claim[] {
  const claims: Claim[] = [];
  for (const pattern of COMMAND_PATTERNS) {
    pattern.lastIndex = 0;
    for (let match = pattern.exec(sentence); match !== null; match = pattern.exec(sentence)) {
      const line = match[1] ?? '';
      if (isNegated(sentence.slice(0, match.index))) continue;
      // A lone path is not a command (`src/a.ts` passed lint).
      if (!/\s/.test(line.trim()) && findPaths(line).length > 0) continue;
      const argv = splitCommandLine(line);
      if (argv.length > 0)
        claims.push({ kind: 'command-passed', argv, source: 'notes', text: shorten(sentence) });
    }
  }
  return claims;
}

function checkClaims(sentence: string, hasCommand: boolean): Claim[] {
  const claims: Claim[] = [];
  for (const { check, pattern } of CHECK_PATTERNS) {
    const match = pattern.exec(sentence);
    if (!match) continue;
    if (isNegated(sentence.slice(0, match.index))) continue;
    if (/\b(?:not all|no)\s*$/i.test(sentence.slice(0, match.index))) continue;
    if (hasCommand && check === 'test') continue;
    claims.push({ kind: 'check-passed', check, source: 'notes', text: shorten(sentence) });
  }
  return claims;
}

function categoryOf(groups: Record<string, string | undefined>): {
  category: VerbCategory;
  chinese: boolean;
} {
  if (groups.enCreate) return { category: 'create', chinese: false };
  if (groups.enModify) return { category: 'modify', chinese: false };
  if (groups.enDelete) return { category: 'delete', chinese: false };
  if (groups.zhCreate) return { category: 'create', chinese: true };
  if (groups.zhModify) return { category: 'modify', chinese: true };
  return { category: 'delete', chinese: true };
}

function effectClaims(sentence: string): Claim[] {
  const claims: Claim[] = [];
  const verbs: { index: number; end: number; category: VerbCategory; chinese: boolean; word: string }[] = [];
  VERB.lastIndex = 0;
  for (let match = VERB.exec(sentence); match !== null; match = VERB.exec(sentence)) {
    const { category, chinese } = categoryOf(match.groups ?? {});
    verbs.push({
      index: match.index,
      end: match.index + match[0].length,
      category,
      chinese,
      word: match[0].toLowerCase(),
    });
  }
  const text = shorten(sentence);
  verbs.forEach((verb, position) => {
    const next = verbs[position + 1];
    let segment = sentence.slice(verb.end, next ? next.index : sentence.length);
    const stop = SEGMENT_STOP.exec(segment);
    if (stop) segment = segment.slice(0, stop.index);
    const prefix = sentence.slice(position > 0 ? (verbs[position - 1]?.end ?? 0) : 0, verb.index);
    if (isNegated(sentence.slice(0, verb.index)) || isNegated(prefix)) return;
    const location = verb.chinese ? ZH_LOCATION.exec(prefix)?.[1] : undefined;
    const locationFile =
      location !== undefined && isFileToken(location) ? location.replace(/^\.\//, '') : undefined;

    // Symbols: "added function validateToken in auth.ts", "在 auth.ts 中加入了 validateToken 函數".
    if (verb.category === 'create') {
      const head = SYMBOL_HEAD.exec(segment);
      const groups = head?.groups;
      const name = groups?.name;
      if (head && name && !STOP_NAMES.has(name.toLowerCase())) {
        const kindWord = (groups.kind1 ?? groups.kind2)?.toLowerCase();
        const rest = segment.slice(head[0].length);
        const restPaths = PREPOSITION.test(rest) || verb.chinese ? findPaths(rest) : [];
        const file = restPaths[0]?.file ?? locationFile;
        const nameIsPath = findPaths(`${name} `).length > 0 || /^[\w-]+\.[A-Za-z]+$/.test(name);
        const marked = kindWord !== undefined || groups.quote !== '' || groups.call !== undefined;
        if (!nameIsPath && (marked || (isCodeLike(name) && file !== undefined))) {
          const symbolKind: SymbolKind =
            verb.word === 'imported'
              ? 'import'
              : kindWord !== undefined
                ? (KIND_WORDS[kindWord] ?? 'any')
                : 'any';
          claims.push({
            kind: 'symbol-added',
            name,
            ...(file !== undefined ? { file } : {}),
            symbolKind,
            source: 'notes',
            text,
          });
          return;
        }
      }
    }

    // Files: direct objects are created/deleted; files after a preposition were modified.
    const paths = findPaths(segment);
    const preposition = PREPOSITION.exec(segment);
    const objectEnd = preposition ? preposition.index : segment.length;
    for (const { file, index } of paths) {
      const isObject = index < objectEnd;
      if (verb.category === 'delete') {
        if (isObject) claims.push({ kind: 'file-deleted', file, source: 'notes', text });
      } else if (verb.category === 'create' && isObject) {
        claims.push({ kind: 'file-written', file, action: 'created', source: 'notes', text });
      } else {
        claims.push({ kind: 'file-written', file, action: 'modified', source: 'notes', text });
      }
    }
    if (paths.length === 0 && locationFile !== undefined && verb.category !== 'delete') {
      claims.push({ kind: 'file-written', file: locationFile, action: 'modified', source: 'notes', text });
    }
  });
  return claims;
}

function claimKey(claim: Claim): string {
  switch (claim.kind) {
    case 'file-written':
    case 'file-deleted':
      return `${claim.kind}:${claim.file}`;
    case 'symbol-added':
      return `${claim.kind}:${claim.file ?? ''}:${claim.name}`;
    case 'command-passed':
      return `${claim.kind}:${claim.argv.join('\u0000')}`;
    case 'check-passed':
      return `${claim.kind}:${claim.check}`;
  }
}

/** Removes duplicate claims (same kind and target), keeping the first. */
export function dedupeClaims(claims: readonly Claim[]): Claim[] {
  const seen = new Set<string>();
  return claims.filter((claim) => {
    const key = claimKey(claim);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * Extracts checkable claims from free text (a step's notes), in English and Chinese:
 * files created/modified/deleted ("created src/a.ts", "wrote `src/a.ts`", "已修改 auth.ts",
 * "新增了 src/a.ts", "删除了 x.ts"), symbols added ("added function validateToken in auth.ts",
 * "在 auth.ts 中加入了 validateToken 函數"), commands that passed ("`npm test` passes") and
 * passing checks with no command ("all tests passed", "测试通过", "no type errors").
 * Negated or intended actions ("could not create", "will add", "未能修改") are not claims.
 *
 * @example
 * extractClaims('[SUCCESS]: created `src/a.ts`, tests pass');
 * // [{ kind: 'file-written', file: 'src/a.ts', action: 'created', … }, { kind: 'check-passed', check: 'test', … }]
 */
export function extractClaims(text: string): Claim[] {
  const body = text.trim().replace(/^\[(?:SUCCESS|FAIL)\]\s*:?\s*/, '');
  const claims: Claim[] = [];
  for (const sentence of splitSentences(body)) {
    const commands = commandClaims(sentence);
    claims.push(...commands, ...checkClaims(sentence, commands.length > 0), ...effectClaims(sentence));
  }
  return dedupeClaims(claims);
}

/** Turns a step's structured `StepClaims` into claims. */
export function claimsFromStepClaims(stepClaims: StepClaims | undefined): Claim[] {
  if (!stepClaims) return [];
  const claims: Claim[] = [];
  for (const file of stepClaims.filesWritten) {
    claims.push({ kind: 'file-written', file, action: 'written', source: 'claims', text: `wrote ${file}` });
  }
  for (const file of stepClaims.filesDeleted) {
    claims.push({ kind: 'file-deleted', file, source: 'claims', text: `deleted ${file}` });
  }
  for (const symbol of stepClaims.symbolsAdded) {
    claims.push({
      kind: 'symbol-added',
      name: symbol.name,
      file: symbol.file,
      symbolKind: symbol.kind,
      source: 'claims',
      text: `added ${symbol.kind === 'any' ? '' : `${symbol.kind} `}${symbol.name} in ${symbol.file}`,
    });
  }
  for (const command of stepClaims.commandsPassed) {
    claims.push({
      kind: 'command-passed',
      argv: [...command.argv],
      source: 'claims',
      text: `\`${command.argv.join(' ')}\` passed`,
    });
  }
  return dedupeClaims(claims);
}

/** Describes a claim in one line (for messages). */
export function describeClaim(claim: Claim): string {
  switch (claim.kind) {
    case 'file-written':
      return `${claim.action} ${claim.file}`;
    case 'file-deleted':
      return `deleted ${claim.file}`;
    case 'symbol-added':
      return `added ${claim.symbolKind === 'any' ? 'symbol' : claim.symbolKind} ${claim.name}${claim.file ? ` in ${claim.file}` : ''}`;
    case 'command-passed':
      return `\`${claim.argv.join(' ')}\` passed`;
    case 'check-passed':
      return `${claim.check} passed`;
  }
}
