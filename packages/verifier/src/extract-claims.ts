import type { StepClaims } from '@closedloop/plan';
import { tagNameIn, tagTargetIn } from './asked-tags';
import { normalizeLayout } from './claim-layout';
import { type Claim, type ClaimSource, dedupeClaims, type TestCountClaim } from './claim-types';
import { findPaths, isFileToken } from './find-paths';
import type { SymbolKind } from './find-symbol';
import { splitCommandLine } from './split-command-line';

export {
  type Claim,
  type ClaimSource,
  dedupeClaims,
  describeClaim,
  type TestCountClaim,
} from './claim-types';

import { countOf } from './number-words';
import { IN_MANIFEST_SOURCE } from './package-manifests';

export { findPaths } from './find-paths';
export { splitCommandLine } from './split-command-line';

type Category = 'create' | 'modify' | 'delete' | 'move';
type Language = 'en' | 'zh' | 'ja';

interface VerbHit {
  index: number;
  end: number;
  category: Category;
  language: Language;
  word: string;
  /** Participles often used to describe, not to report ("the type defined in …"). */
  strict: boolean;
}

// ─── vocabulary ───────────────────────────────────────────────────────────────────────────────

const EN_CREATE =
  'created|wrote|written|added|generated|scaffolded|saved|introduced|implemented|defined|declared|exported|authored|drafted|set up|initiali[sz]ed|bootstrapped|built';
const EN_MODIFY =
  'modified|updated|edited|changed|patched|fixed|refactored|rewrote|rewritten|re-?wrote|adjusted|amended|replaced|tweaked|corrected|improved|cleaned up|reworked|restructured|reorgani[sz]ed|converted|migrated|upgraded|extended|simplified|optimi[sz]ed|documented|formatted|appended|inserted|wired up|integrated|imported|extracted|hardened|filled in|completed|touched';
const EN_DELETE = 'deleted|removed|erased|dropped|purged|unlinked';
const EN_MOVE = 'renamed|moved|relocated';
/** Participles that usually describe rather than report. */
const EN_STRICT =
  /^(?:defined|declared|exported|introduced|imported|built|generated|documented|saved|completed|touched|extracted)$/i;

const ZH_CREATE =
  '新增|新建|创建|創建|建立|添加|增加|加入|实现|實現|实作|實作|编写|編寫|撰写|撰寫|写入|寫入|生成|定义|定義|导出|導出|补充|補充|写|寫';
const ZH_MODIFY =
  '修改|更新|编辑|編輯|调整|調整|修复|修復|修正|重构|重構|改写|改寫|改动|改動|替换|替換|优化|優化|完善|改进|改進|迁移|遷移|升级|升級|格式化';
const ZH_DELETE = '删除|刪除|移除|删掉|刪掉|去掉|去除';
const ZH_MOVE = '重命名|重新命名|改名|移动|移動';

const JA_CREATE = '新規作成|作成|追加|実装|生成|定義|記述|書き込み|作り|作っ|書き|書い|加え';
const JA_MODIFY =
  'リファクタリング|リファクタ|修正|更新|変更|編集|改修|置換|置き換え|最適化|改善|直し|直し|変え|書き換え|書き直し|移行';
const JA_DELETE = '削除|消し|除去';
const JA_MOVE = 'リネーム|名前を変更|名前変更|移動|移し';

const EN_VERBS = [
  `(?<![\\w-])(?<enMove>${EN_MOVE})(?![\\w-])`,
  `(?<![\\w-])(?<enCreate>${EN_CREATE})(?![\\w-])`,
  `(?<![\\w-])(?<enModify>${EN_MODIFY})(?![\\w-])`,
  `(?<![\\w-])(?<enDelete>${EN_DELETE})(?![\\w-])`,
];
/** English and Chinese verbs (a sentence without kana). */
const VERB_ZH = new RegExp(
  [
    ...EN_VERBS,
    `(?<zhMove>${ZH_MOVE})`,
    `(?<zhCreate>${ZH_CREATE})`,
    `(?<zhModify>${ZH_MODIFY})`,
    `(?<zhDelete>${ZH_DELETE})`,
  ].join('|'),
  'giu',
);
/** English and Japanese verbs (a sentence with kana: 更新 and 修正 are Japanese there). */
const VERB_JA = new RegExp(
  [
    ...EN_VERBS,
    `(?<jaMove>${JA_MOVE})(?=し|済|完了|され|でき|を|、|。|$)`,
    `(?<jaCreate>${JA_CREATE})(?=し|済|完了|され|でき|ました|た|、|。|$)`,
    `(?<jaModify>${JA_MODIFY})(?=し|済|完了|され|でき|ました|た|、|。|$)`,
    `(?<jaDelete>${JA_DELETE})(?=し|済|完了|され|でき|ました|た|、|。|$)`,
  ].join('|'),
  'giu',
);
const KANA = /[\u3040-\u30ff]/u;

function hitOf(match: RegExpExecArray): VerbHit | undefined {
  const groups = match.groups ?? {};
  const entries: [string, Category, Language][] = [
    ['enMove', 'move', 'en'],
    ['enCreate', 'create', 'en'],
    ['enModify', 'modify', 'en'],
    ['enDelete', 'delete', 'en'],
    ['zhMove', 'move', 'zh'],
    ['zhCreate', 'create', 'zh'],
    ['zhModify', 'modify', 'zh'],
    ['zhDelete', 'delete', 'zh'],
    ['jaMove', 'move', 'ja'],
    ['jaCreate', 'create', 'ja'],
    ['jaModify', 'modify', 'ja'],
    ['jaDelete', 'delete', 'ja'],
  ];
  for (const [group, category, language] of entries) {
    const word = groups[group];
    if (word === undefined) continue;
    return {
      index: match.index,
      end: match.index + match[0].length,
      category,
      language,
      word: word.toLowerCase(),
      strict: language === 'en' && EN_STRICT.test(word),
    };
  }
  return undefined;
}

// ─── sentences and clauses ────────────────────────────────────────────────────────────────────

function splitSentences(text: string): string[] {
  return text
    .split(/(?<=[。；;！？!?\n])|(?<=[a-zA-Z0-9)`'"\]][.])\s+(?=[A-Z`'"(\-*\d[\u3040-\u9fff])/u)
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence !== '');
}

const EN_CLAUSE_BOUNDARY =
  /;|,?\s+\b(?:but|however|although|though|whereas|yet|while)\b|,\s*(?:and\s+)?then\b|\bthen\b|,\s*and\s+(?=(?:i|we)\b)|[:：]\s+(?=[A-Z])/gi;
const ZH_JA_CLAUSE_BOUNDARY = /[，、,；;：:]|但是|但|然后|然後|并且|並且|而且|另外|同时|同時|之后|之後/g;

/** The text of the clause a verb sits in, before the verb. */
function clauseBefore(sentence: string, index: number, language: Language, floor: number): string {
  const head = sentence.slice(floor, index);
  const pattern = language === 'en' ? EN_CLAUSE_BOUNDARY : ZH_JA_CLAUSE_BOUNDARY;
  pattern.lastIndex = 0;
  let last = 0;
  for (let match = pattern.exec(head); match !== null; match = pattern.exec(head)) {
    last = match.index + match[0].length;
  }
  return head.slice(last);
}

// ─── English context ──────────────────────────────────────────────────────────────────────────

const LABEL =
  /^\s*(?:[>*_\-+•·✓✔✅☑#~]+\s*|\d+[.)]\s*|\[(?:x| )\]\s*|(?:summary|done|result|results|changes|change|status|update|note|notes|what i did|work done)\s*[:：-]\s*|\*\*[^*]+\*\*\s*[:：]\s*)*/i;
const SUBJECT_TOKENS =
  /^(?:(?:i|we|i've|we've|i'd|we'd|have|has|had|also|then|and|so|finally|first|firstly|second|secondly|next|lastly|last|successfully|just|now|already|additionally|further|furthermore|moreover|plus|here|both|in this step|this step|the step|step\s+\d+|to summarize|in summary|overall|ok|okay|done|i then|i also|we also|i have also|i've also|as requested|as asked|per the request|accordingly|carefully|quickly|properly|correctly|fully)\b[\s,:.-]*)*$/i;
const PASSIVE_END =
  /\b(?:was|were|has been|have been|had been|got|is now|are now|is|are|been)\s+(?:also\s+|now\s+|successfully\s+|all\s+|both\s+|correctly\s+|properly\s+|then\s+)*$/i;
const STATE_PASSIVE = /\b(?:is|are)\s+(?:also\s+|correctly\s+|properly\s+)*$/i;
const EN_NEGATION =
  /\b(?:not|never|no|unable|cannot|can't|couldn't|could not|didn't|did not|wasn't|weren't|won't|will|would|should|must|need to|needs to|plan to|planned to|going to|try to|tried to|trying to|attempt to|attempted to|failed to|fail to|about to|want to|wanted to|if|whether|without|to be|yet to|instead of|rather than)\b[^,;]*$/i;

type EnglishRole = { kind: 'active' } | { kind: 'passive'; subject: string } | { kind: 'none' };

/** Whether an English verb reports the step's own action, and how. */
function englishRole(sentence: string, verb: VerbHit, floor: number): EnglishRole {
  const clause = clauseBefore(sentence, verb.index, 'en', floor);
  if (EN_NEGATION.test(clause.slice(-80))) return { kind: 'none' };
  const lead = clause.replace(LABEL, '');
  // A comma resets the subject for common verbs ("Based on X, added Y"), not for participles
  // that usually describe ("the type, defined in X, …").
  const afterComma = verb.strict ? lead : (lead.split(/[,，]|\band\b|\bthen\b|\balso\b/i).pop() ?? lead);
  if (SUBJECT_TOKENS.test(afterComma.trim())) return { kind: 'active' };
  if (PASSIVE_END.test(lead)) {
    if (STATE_PASSIVE.test(lead) && !/\bnow\s*$/i.test(lead)) {
      // "is defined in x.ts" describes a state; "is now fixed" reports a change.
      return { kind: 'none' };
    }
    return { kind: 'passive', subject: lead.replace(PASSIVE_END, '') };
  }
  // Headline: "`src/a.ts`: created", "src/a.ts created".
  const headline = /^\s*[*_`'"「]*([^\s`'"*」]+)[*_`'"」]*\s*[:：—–-]?\s*$/.exec(lead);
  if (headline && findPaths(headline[1] ?? '').length === 1) return { kind: 'passive', subject: lead };
  return { kind: 'none' };
}

const EN_SEGMENT_STOP =
  /,?\s*\b(?:because|since|so that|so|which|who|whose|while|but|although|though|as (?:described|defined|specified|shown|documented|requested|in)|after|before|when|whenever|until|then|based on|using|according to|following|per|via|instead of|rather than|in order to|to (?:make|ensure|allow|fix|support|match|keep|use|handle|avoid|prevent|reflect|cover|test|verify|check|follow|mirror|reuse|call|import|export|document|show|add|remove|include|expose|accept|return|print|log|read|load|parse|validate|improve|simplify|clarify|describe|explain|demonstrate|illustrate|help|enable|disable|get|set|let|run|pass|work|be|do)\b|by (?:the|step|another|previous|an earlier|someone)|(?:written|created|added|defined) by|previously|earlier|reusing|mirroring|similar to|like the|(?:that|which)?\s*(?:i|we|you|it|they)\s+(?:read|saw|found|looked|checked|used|reviewed|inspected|followed|took|got|had|was|were))\b|[;]/i;
const EN_PREPOSITION =
  /\b(?:to|into|in|inside|within|under|at|on|from|of|for|with|by|about|like|than|against|beside|alongside|next to|near|over|onto|as)\b/gi;
/** Files that hold data, not declarations: "config.json with `port`" is no symbol claim. */
const DATA_FILE =
  /\.(?:json|jsonc|json5|ya?ml|toml|ini|cfg|conf|env|lock|md|mdx|txt|csv|tsv|xml|html?|css|scss|svg)$/i;
const LOCATION_PREPOSITIONS = /^(?:to|into|in|inside|within|under|at|onto)$/i;

/** The preposition closest before `index` in `segment`, or undefined when the path is a direct object. */
function prepositionBefore(segment: string, index: number): string | undefined {
  EN_PREPOSITION.lastIndex = 0;
  let last: string | undefined;
  for (let match = EN_PREPOSITION.exec(segment); match !== null; match = EN_PREPOSITION.exec(segment)) {
    if (match.index >= index) break;
    last = match[0].toLowerCase();
  }
  return last;
}

// ─── symbols ──────────────────────────────────────────────────────────────────────────────────

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
  関数: 'function',
  メソッド: 'function',
  クラス: 'class',
  インターフェース: 'interface',
  インタフェース: 'interface',
  型: 'type',
  定数: 'variable',
  変数: 'variable',
};
const KIND_PATTERN =
  'type alias|function|method|helper|class|interface|type|enum|constant|const|variable|exported|export|import|函数|函數|方法|类|類|接口|介面|类型|類型|型別|变量|變數|常量|常數|関数|メソッド|クラス|インターフェース|インタフェース|型|定数|変数';
const STOP_NAMES = new Set(
  'in to into for from that which the a an of with and on at it its this these those new file files test tests code support logic feature features function functions module modules changes change readme docs documentation some all each both more a few several two three error errors handling validation unit hints annotations checking safety'.split(
    ' ',
  ),
);

/**
 * Nouns naming a part of a declaration, not a declaration: a parameter, an option, a feature flag
 * (an entry of a flags object or a config file). (Entries, keys and fields stay: in a line file or
 * a manifest they are what the claim names.)
 */
const PART_NOUN =
  /^\s*(?:parameters?|params?|arguments?|args?|options?|props?|attributes?|query\s+param\w*|(?:feature\s+)?flags?|(?:feature\s+)?toggles?|settings?)\b/i;

const SYMBOL_HEAD = new RegExp(
  `^\\s*[:：]?\\s*(?:了\\s*)?(?:(?:a|an|the|new|one|public|private|protected|static|abstract|instance|exported|small|simple|pure|async)\\s+|(?:一个|一個|新的|新)\\s*)*(?:(?<kind1>${KIND_PATTERN})(?![A-Za-z])\\s*(?:(?:named|called)\\s+)?)?(?<quote>[\`'"「]?)(?<name>[A-Za-z_$][\\w$]*(?:\\.[A-Za-z_$][\\w$]*)?)(?<call>\\([^)]{0,60}\\))?\\k<quote>(?![\\w./])\\s*(?:(?<kind2>${KIND_PATTERN})(?![A-Za-z]))?`,
  'iu',
);

function isCodeLike(name: string): boolean {
  return (
    /[a-z][A-Z]/.test(name) || name.includes('_') || /^[A-Z][a-z]+[A-Z]/.test(name) || name.includes('.')
  );
}

/** A symbol at the start of `segment` ("function validateToken", "`isPrime()`", "isPrime 函数"). */
function symbolAt(segment: string, hasFile: boolean): { name: string; kind: SymbolKind } | undefined {
  const head = SYMBOL_HEAD.exec(segment);
  const groups = head?.groups;
  const name = groups?.name;
  if (!head || !groups || !name || STOP_NAMES.has(name.toLowerCase())) return undefined;
  // "Add a `limit` parameter", "a `timeout` option": a part of something, not a declaration.
  if (
    groups.kind1 === undefined &&
    groups.kind2 === undefined &&
    PART_NOUN.test(segment.slice(head[0].length))
  )
    return undefined;
  if (findPaths(`${name} `).length > 0 || /^[\w-]+\.[A-Za-z]+$/.test(name)) return undefined;
  const kindWord = (groups.kind1 ?? groups.kind2)?.toLowerCase();
  const marked = kindWord !== undefined || groups.quote !== '' || groups.call !== undefined;
  if (!marked && !(isCodeLike(name) && hasFile)) return undefined;
  return { name, kind: kindWord !== undefined ? (KIND_WORDS[kindWord] ?? 'any') : 'any' };
}

const KIND_PLURAL =
  'functions|methods|helpers|classes|interfaces|types|constants|variables|exports|函数|函數|方法|関数|メソッド';
const NAME_ITEM = '[`\'"「]?[A-Za-z_$][\\w$]*(?:\\([^)]{0,40}\\))?[`\'"」]?';
const SYMBOL_LIST = new RegExp(
  `^\\s*[:：]?\\s*(?:了\\s*)?(?:(?:the|a|an|new|two|three|four|both|all)\\s+)*(?:(?<kind>${KIND_PATTERN}|${KIND_PLURAL})(?![A-Za-z])\\s*)?(?<names>${NAME_ITEM}(?:\\s*(?:,\\s*(?:and\\s+)?|\\s+and\\s+|\\s*&\\s*|\\s*[、和と及]\\s*)${NAME_ITEM})+)(?:\\s*(?<kind2>${KIND_PATTERN}|${KIND_PLURAL})(?![A-Za-z]))?`,
  'iu',
);

/**
 * Symbols at the start of `segment`: one ("function validateToken", "`isPrime()`") or a list
 * ("functions add and mul", "`add`, `sub` and `mul`", "add() and mul()").
 */
export function symbolsAt(segment: string, hasFile: boolean): { name: string; kind: SymbolKind }[] {
  const list = SYMBOL_LIST.exec(segment);
  if (list?.groups?.names) {
    const kindWord = (list.groups.kind ?? list.groups.kind2)?.toLowerCase().replace(/(?:es|s)$/, '');
    const kind: SymbolKind =
      kindWord !== undefined ? (KIND_WORDS[kindWord] ?? KIND_WORDS[`${kindWord}s`] ?? 'function') : 'any';
    const found: { name: string; kind: SymbolKind }[] = [];
    for (const raw of list.groups.names.split(/\s*(?:,\s*(?:and\s+)?|\s+and\s+|&|[、和と及])\s*/u)) {
      const marked = /^[`'"「]|\(/.test(raw) || kindWord !== undefined;
      const name = raw.replace(/^[`'"「]|[`'"」]$/g, '').replace(/\(.*$/, '');
      if (name === '' || STOP_NAMES.has(name.toLowerCase()) || findPaths(`${name} `).length > 0) continue;
      if (!marked && !(isCodeLike(name) && hasFile)) continue;
      found.push({ name, kind });
    }
    if (found.length >= 2) return found;
  }
  const one = symbolAt(segment, hasFile);
  return one ? [one] : [];
}

function shorten(text: string): string {
  return text.length > 200 ? `${text.slice(0, 197)}…` : text;
}

// ─── effects: files, symbols, moves ───────────────────────────────────────────────────────────

interface ClaimContext {
  source: ClaimSource;
  text: string;
}

function fileClaim(
  category: Category,
  file: string,
  context: ClaimContext,
  role: 'object' | 'location',
): Claim {
  if (role === 'location' || category === 'modify' || category === 'move')
    return { kind: 'file-written', file, action: 'modified', ...context };
  if (category === 'delete') return { kind: 'file-deleted', file, ...context };
  return { kind: 'file-written', file, action: 'created', ...context };
}

/** Claims of one English verb, given its role. */
function englishEffects(
  sentence: string,
  verb: VerbHit,
  next: VerbHit | undefined,
  role: EnglishRole,
  context: ClaimContext,
): Claim[] {
  const claims: Claim[] = [];
  let segment = sentence.slice(verb.end, next ? next.index : sentence.length);
  const stop = EN_SEGMENT_STOP.exec(segment);
  if (stop) segment = segment.slice(0, stop.index);
  const located: { file: string; role: 'object' | 'location' | 'source' | 'mention' }[] = [];
  for (const { file, index } of findPaths(segment)) {
    const preposition = prepositionBefore(segment, index);
    if (preposition === undefined) located.push({ file, role: 'object' });
    else if (LOCATION_PREPOSITIONS.test(preposition)) located.push({ file, role: 'location' });
    else if (preposition === 'from' && (verb.category === 'delete' || verb.category === 'move'))
      located.push({ file, role: 'source' });
    else if (preposition === 'from' && /^(?:exported|extracted)$/.test(verb.word))
      located.push({ file, role: 'location' });
    else located.push({ file, role: 'mention' });
  }
  const subjectPaths = role.kind === 'passive' ? findPaths(role.subject).map((found) => found.file) : [];

  // Moves and renames: "renamed a.ts to b.ts", "moved the helpers from a.ts to lib/a.ts".
  if (verb.category === 'move') {
    const from =
      subjectPaths[0] ?? located.find((item) => item.role === 'object' || item.role === 'source')?.file;
    const to = located.find((item) => item.role === 'location' && item.file !== from)?.file;
    if (from !== undefined && to !== undefined) {
      claims.push({ kind: 'file-moved', from, to, ...context });
      return claims;
    }
    // A renamed symbol: "renamed getUser to fetchUser in src/api.ts".
    const renamed = /\bto\s+[`'"]?([A-Za-z_$][\w$]*)[`'"]?/.exec(segment)?.[1];
    const file =
      located.find((item) => item.role === 'location' && item.file !== to)?.file ??
      located.find((item) => item.role === 'object')?.file;
    if (renamed !== undefined && !STOP_NAMES.has(renamed.toLowerCase()) && file !== undefined) {
      claims.push({ kind: 'symbol-added', name: renamed, file, symbolKind: 'any', ...context });
    } else if (file !== undefined) claims.push(fileClaim('modify', file, context, 'location'));
    return claims;
  }

  // Symbols: "added function validateToken in auth.ts", "implemented `isPrime()`".
  if (verb.category === 'create' || verb.word === 'imported' || verb.word === 'exported') {
    const file = located.find((item) => item.role === 'location')?.file ?? subjectPaths[0];
    const symbols =
      role.kind === 'passive'
        ? symbolsAt(role.subject.replace(/^\s*(?:the|a|an|new)\s+/i, ''), file !== undefined)
        : symbolsAt(segment, file !== undefined);
    if (symbols.length > 0) {
      for (const symbol of symbols) {
        claims.push({
          kind: 'symbol-added',
          name: symbol.name,
          ...(file !== undefined ? { file } : {}),
          symbolKind: verb.word === 'imported' ? 'import' : symbol.kind,
          ...context,
        });
      }
      return claims;
    }
  }

  // "created src/a.js with the helper `double`": the file and the symbol it holds.
  if (verb.category === 'create' || verb.category === 'modify') {
    const holder =
      located.find((item) => item.role === 'object' || item.role === 'location')?.file ?? subjectPaths[0];
    const inner = new RegExp(
      `\\b(?:with|containing|adding|exporting|defining|including)\\s+(?:(?:a|an|the|new)\\s+)*(?:(?<kind>${KIND_PATTERN})\\s+)?(?<quote>[\\u0060'"])?(?<name>[A-Za-z_$][\\w$]*)(?<call>\\([^)]{0,40}\\))?\\k<quote>?`,
      'i',
    ).exec(segment);
    const name = inner?.groups?.name;
    // `package.json with "type": "module"` names a key and its value, not a declaration.
    const keyValue = inner !== null && /^\s*:/.test(segment.slice(inner.index + inner[0].length));
    if (
      holder !== undefined &&
      inner?.groups &&
      name &&
      !keyValue &&
      !DATA_FILE.test(holder) &&
      !STOP_NAMES.has(name.toLowerCase())
    ) {
      const marked =
        inner.groups.kind !== undefined ||
        inner.groups.quote !== undefined ||
        inner.groups.call !== undefined;
      if (marked && findPaths(`${name} `).length === 0) {
        const kindWord = inner.groups.kind?.toLowerCase();
        claims.push({
          kind: 'symbol-added',
          name,
          file: holder,
          symbolKind: kindWord !== undefined ? (KIND_WORDS[kindWord] ?? 'any') : 'any',
          ...context,
        });
      }
    }
  }
  for (const file of subjectPaths) claims.push(fileClaim(verb.category, file, context, 'object'));
  for (const item of located) {
    if (item.role === 'mention') continue;
    if (item.role === 'source') {
      claims.push(fileClaim('modify', item.file, context, 'location'));
      continue;
    }
    claims.push(fileClaim(verb.category, item.file, context, item.role));
  }
  return claims;
}

// ─── Chinese ──────────────────────────────────────────────────────────────────────────────────

const ZH_NEGATION =
  /(?:未|没有|沒有|没|沒|无法|無法|不能|不|未能|尚未|还没|還沒|还未|還未|将要|將要|要|需要|打算|准备|準備|计划|計劃|应该|應該|应|應|会|會|想|尝试|嘗試|试图|試圖|请|請|可以|能够|能夠|如果|若|若要|待|将|將)\s*(?:已经|已經|已|再|都|也)?\s*$/;
const ZH_MARKER_BEFORE = /(?:已经|已經|已|成功地?|都已|均已|并已|並已|被)\s*$/;
const ZH_MARKER_AFTER = /^\s*(?:了|完成|完毕|完畢|成功|好了|好|过|過)/;
const ZH_SUBJECT =
  /^\s*(?:[>*\-+•·✓✔✅#\d.)、]\s*)*(?:我们|我們|我|本步骤|本步驟|此步骤|此步驟|首先|接着|接著|最后|最後|另外|此外|同时|同時|并|並|也|还|還|再|然后|然後)?\s*$/;
const ZH_MENTION_BEFORE =
  /(?:根据|根據|基于|基於|参考|參考|参照|參照|按照|依据|依據|使用|利用|通过|通過|从|從|读取|讀取|查看|阅读|閱讀)\s*$/;

function chineseEffects(
  sentence: string,
  verb: VerbHit,
  next: VerbHit | undefined,
  floor: number,
  context: ClaimContext,
): Claim[] {
  const before = sentence.slice(floor, verb.index);
  const clause = clauseBefore(sentence, verb.index, 'zh', floor);
  if (ZH_NEGATION.test(before.slice(-8))) return [];
  const after = sentence.slice(verb.end);
  if (/^\s*(?:了|好|过|過)?\s*的/.test(after)) return []; // attributive: 新增的函数
  const marked =
    ZH_MARKER_BEFORE.test(before.slice(-6)) ||
    ZH_MARKER_AFTER.test(after) ||
    ZH_SUBJECT.test(clause.replace(/^.*?(?:在|于|於)\s*\S+\s*(?:中|里|裡|内|內)\s*/, ''));
  const disposal = /(?:将|將|把)\s*[`'"「]?[^\s`'"」]+[`'"」]?\s*$/.test(clause);
  if (!marked && !disposal) return [];
  const claims: Claim[] = [];
  let segment = sentence.slice(verb.end, next ? next.index : sentence.length);
  const stop = /[，,。；;：:]|以便|因为|因為|所以|使得|从而|從而|根据|根據|基于|基於/.exec(segment);
  if (stop) segment = segment.slice(0, stop.index);
  const target = /^\s*(?:了)?\s*(?:为|為|到|至|成)\s*[`'"「]?([^\s`'"」，。]+)/.exec(segment)?.[1];
  // Paths in the clause before the verb: "在 X 中" (location), "将/把 X" (object), topic "X 已删除".
  const prePaths = findPaths(clause).map(({ file, index }) => {
    const lead = clause.slice(0, index);
    const tail = clause.slice(index + file.length);
    if (ZH_MENTION_BEFORE.test(lead.replace(/[`'"「\s]+$/, ''))) return { file, role: 'mention' as const };
    if (/(?:在|于|於|往|向)\s*[`'"「]?\s*$/.test(lead) || /^[`'"」]?\s*(?:中|里|裡|内|內|的)/.test(tail))
      return { file, role: 'location' as const };
    return { file, role: 'object' as const };
  });
  const postPaths = findPaths(segment).map(({ file, index }) => {
    const lead = segment.slice(0, index);
    return {
      file,
      role: /(?:为|為|到|至|成|进|進)\s*[`'"「]?\s*$/.test(lead)
        ? ('location' as const)
        : ('object' as const),
    };
  });
  if (verb.category === 'move') {
    const from =
      prePaths.find((item) => item.role === 'object')?.file ??
      postPaths.find((item) => item.role === 'object')?.file;
    const to =
      target !== undefined && isFileToken(target)
        ? target
        : postPaths.find((item) => item.role === 'location')?.file;
    if (from !== undefined && to !== undefined) return [{ kind: 'file-moved', from, to, ...context }];
    const location = prePaths.find((item) => item.role === 'location')?.file;
    if (target !== undefined && /^[A-Za-z_$][\w$]*$/.test(target) && location !== undefined)
      return [{ kind: 'symbol-added', name: target, file: location, symbolKind: 'any', ...context }];
    if (location !== undefined) return [fileClaim('modify', location, context, 'location')];
    return [];
  }
  const location =
    prePaths.find((item) => item.role === 'location')?.file ??
    postPaths.find((item) => item.role === 'location')?.file;
  if (verb.category === 'create') {
    const listed = symbolsAt(segment, location !== undefined);
    const symbols = (
      listed.length > 0 ? listed : symbolsAt(clause.replace(/^.*?(?:将|將|把)/, ''), location !== undefined)
    ).filter((symbol) => !(symbol.name.length <= 2 && symbol.kind === 'any'));
    if (symbols.length > 0) {
      for (const symbol of symbols) {
        claims.push({
          kind: 'symbol-added',
          name: symbol.name,
          ...(location !== undefined ? { file: location } : {}),
          symbolKind: symbol.kind,
          ...context,
        });
      }
      return claims;
    }
  }
  for (const item of [...prePaths, ...postPaths]) {
    if (item.role === 'mention') continue;
    claims.push(fileClaim(verb.category, item.file, context, item.role));
  }
  return claims;
}

// ─── Japanese ─────────────────────────────────────────────────────────────────────────────────

const JA_CLAIM_ENDING =
  /^(?:を)?(?:しました|いたしました|した(?=[。、．，,.!！\s]|$|が|ので|から|けど|ところ|うえ|上で|後)|しておきました|しておいた|してあります|してある|しています|している(?=[。、．，,.!！\s]|$)|済み|済|完了|されました|されています|された(?=[。、．，,.!！\s]|$)|できました|ました|た(?=[。、．，,.!！\s]|$|が|ので)|て(?:おきました|あります|います))/;
const JA_CONJUNCTIVE = /^(?:し|して|て)(?=[、,\s])/;
const JA_NEGATIVE =
  /^(?:を)?(?:しませんでした|していません|しない|しなかった|できませんでした|できなかった|できず|できない|する予定|します(?!た)|する必要|してください|しようと|しよう|するつもり|に失敗|せず|ません)/;
const JA_SENTENCE_NEGATIVE = /ませんでした|できなかった|できず|失敗|未完了|していません/;

function japaneseEffects(sentence: string, verb: VerbHit, floor: number, context: ClaimContext): Claim[] {
  const after = sentence.slice(verb.end);
  if (JA_NEGATIVE.test(after)) return [];
  const claimed = JA_CLAIM_ENDING.test(after);
  const conjunctive = JA_CONJUNCTIVE.test(after) && !JA_SENTENCE_NEGATIVE.test(after);
  if (!claimed && !conjunctive) return [];
  const clause = clauseBefore(sentence, verb.index, 'ja', floor);
  const items = findPaths(clause).map(({ file, index }) => {
    const tail = clause.slice(index + file.length).replace(/^[`'"」』\s]+/, '');
    const particle = /^(を|に|へ|で|から|の|は|が)/.exec(tail)?.[1];
    const upToNextPath = tail.slice(0, findPaths(tail)[0]?.index ?? tail.length);
    if (
      /^(?:に基づ|を参考|を参照|を使|で定義され|にある|から読)/.test(tail) ||
      /に基づ|を参考|を参照|に従|と同様|のように|を使っ|を使用/.test(upToNextPath)
    )
      return { file, role: 'mention' as const };
    if (particle === 'を' || particle === 'は' || particle === 'が' || particle === undefined)
      return { file, role: 'object' as const };
    if (particle === 'から') return { file, role: 'source' as const };
    return { file, role: 'location' as const };
  });
  if (verb.category === 'move') {
    const from = items.find((item) => item.role === 'object' || item.role === 'source')?.file;
    const to = items.find((item) => item.role === 'location' && item.file !== from)?.file;
    if (from !== undefined && to !== undefined) return [{ kind: 'file-moved', from, to, ...context }];
    return [];
  }
  const location = items.find((item) => item.role === 'location')?.file;
  if (verb.category === 'create') {
    const symbolText =
      /([A-Za-z_$][\w$]*)(?:\(\))?[`'"」]?\s*(関数|メソッド|クラス|インターフェース|インタフェース|型|定数|変数)?\s*を\s*$/.exec(
        clause,
      );
    const quoted = /[`「]([A-Za-z_$][\w$]*)(?:\(\))?[`」]/.exec(clause);
    const name = symbolText?.[1] ?? quoted?.[1];
    if (
      name !== undefined &&
      (symbolText?.[2] !== undefined || quoted !== null || isCodeLike(name)) &&
      findPaths(`${name} `).length === 0
    ) {
      const kind = symbolText?.[2] !== undefined ? (KIND_WORDS[symbolText[2]] ?? 'any') : 'any';
      return [
        {
          kind: 'symbol-added',
          name,
          ...(location !== undefined ? { file: location } : {}),
          symbolKind: kind,
          ...context,
        },
      ];
    }
  }
  const claims: Claim[] = [];
  for (const item of items) {
    if (item.role === 'mention') continue;
    claims.push(
      fileClaim(verb.category, item.file, context, item.role === 'source' ? 'location' : item.role),
    );
  }
  return claims;
}

function effectClaims(sentence: string, context: ClaimContext): Claim[] {
  const verbs: VerbHit[] = [];
  const pattern = KANA.test(sentence) ? VERB_JA : VERB_ZH;
  pattern.lastIndex = 0;
  for (let match = pattern.exec(sentence); match !== null; match = pattern.exec(sentence)) {
    const hit = hitOf(match);
    if (hit) verbs.push(hit);
    if (match[0].length === 0) pattern.lastIndex += 1;
  }
  const claims: Claim[] = [];
  verbs.forEach((verb, position) => {
    const next = verbs[position + 1];
    const floor = 0;
    if (verb.language === 'en') {
      const role = englishRole(sentence, verb, floor);
      if (role.kind === 'none') return;
      claims.push(...englishEffects(sentence, verb, next, role, context));
    } else if (verb.language === 'zh') {
      claims.push(...chineseEffects(sentence, verb, next, floor, context));
    } else {
      claims.push(...japaneseEffects(sentence, verb, floor, context));
    }
  });
  return claims;
}

// ─── tests, builds and commands that passed ──────────────────────────────────────────────────

const COUNT = '(?:\\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty)';

const EN_TEST_PASS = new RegExp(
  `\\b(?<all>all\\s+(?:of\\s+)?(?:the\\s+)?)?(?:(?<count>${COUNT})(?:\\s*\\/\\s*(?<of>\\d+))?\\s+)?(?:of\\s+the\\s+)?(?:the\\s+)?(?:(?<count2>${COUNT})\\s+)?(?:new\\s+|unit\\s+|existing\\s+|node:?test\\s+|test\\s+)?(?:tests?|specs?|test\\s+cases?|cases?|assertions?)(?:\\s+suite)?(?:\\s+in\\s+\\S+)?\\s+(?:now\\s+|still\\s+|all\\s+|also\\s+)*(?:(?:are|is|were|have)\\s+(?:all\\s+|now\\s+)*)?(?:pass(?:es|ed|ing)?|succeed(?:s|ed)?|green|ok|successful)\\b|\\b(?<count3>\\d+)\\s*(?:\\/\\s*(?<of3>\\d+)\\s*)?(?:tests?\\s+)?(?:passing|passed)\\b|\\btests?\\s*[:：]\\s*(?<count4>\\d+)\\s+passed\\b`,
  'i',
);
const ZH_TEST_PASS =
  /(?:(?<count>\d+|[一二两兩三四五六七八九十]+)\s*个?\s*(?:单元|單元)?(?:测试|測試)(?:用例)?|(?<all>所有|全部)?(?:单元|單元)?(?:测试|測試)(?:用例)?)\s*(?:已|都|均|全部|皆|全都|已经|已經|也)*\s*(?:通过|通過|成功)|通过了?\s*(?<all2>全部|所有)?\s*(?<count2>\d+)?\s*个?\s*(?:测试|測試)/u;
const JA_TEST_PASS =
  /(?:(?<count>\d+)\s*(?:件|個)の?)?テスト(?:ケース)?(?:が|は)?\s*(?<all>すべて|全て|全部)?\s*(?:パス|合格|成功|通過|通り)(?:しました|した|ました|済み)?/u;

const TEST_NEGATION =
  /\b(?:not\s+all|no|not|never|don't|doesn't|didn't|won't|couldn't|can't|cannot|failing|fail|make|ensure|until|once|so that|to get|should|must|will|would|if|whether|expect|expected)\b[^.;]*$/i;

function testCount(groups: Record<string, string | undefined>, allWord: boolean): TestCountClaim {
  const count = countOf(groups.count ?? groups.count2 ?? groups.count3 ?? groups.count4);
  const of = countOf(groups.of ?? groups.of3);
  const tests: TestCountClaim = { all: allWord || (count !== undefined && of !== undefined && count === of) };
  const claimed = of ?? count;
  if (claimed !== undefined) tests.count = claimed;
  return tests;
}

const CHECK_PATTERNS: { check: 'build' | 'typecheck' | 'lint'; pattern: RegExp }[] = [
  {
    check: 'typecheck',
    pattern:
      /\bno\s+(?:type|typescript|tsc)\s+errors\b|\btype[\s-]?check(?:s|ing)?\s+(?:now\s+|still\s+)?(?:passes|passed|is clean|succeeded|succeeds|is green)\b|\btsc\s+(?:passes|passed|is clean|reports no errors)\b|(?:类型|類型|型別)(?:检查|檢查)\s*(?:已|都)?\s*(?:通过|通過)|(?:没有|沒有)(?:类型|類型|型別)(?:错误|錯誤)|型チェック(?:が|は)?(?:パス|通り|成功)|型エラーはありません/iu,
  },
  {
    check: 'build',
    pattern:
      /\b(?:the\s+)?build\s+(?:now\s+|still\s+)?(?:passes|passed|succeeds|succeeded|is green|works)\b|\bbuilds?\s+(?:successfully|cleanly)\b|\bbuilt\s+successfully\b|\bcompiles?\s+(?:successfully|cleanly|without errors)\b|(?:构建|構建|编译|編譯|建置)\s*(?:已)?\s*(?:通过|通過|成功)|ビルド(?:が|は)?(?:成功|通り|パス)/iu,
  },
  {
    check: 'lint',
    pattern:
      /\blint(?:ing|er)?\s+(?:now\s+|still\s+)?(?:passes|passed|is clean|clean|succeeded)\b|\bno\s+lint\s+(?:errors|warnings|issues)\b|lint\s*(?:检查)?\s*(?:通过|通過)|(?:代码|代碼)(?:检查|檢查)\s*(?:通过|通過)|(?:リント|Lint)(?:が|は)?(?:パス|通り|成功)/iu,
  },
];

const SUCCESS_WORDS =
  '(?:now\\s+|still\\s+|also\\s+)?(?:passes|passed|succeeds|succeeded|exits?\\s+(?:with\\s+)?(?:code\\s+)?0|exited\\s+(?:with\\s+)?(?:code\\s+)?0|returns?\\s+0|runs?\\s+(?:successfully|cleanly|green)|ran\\s+successfully|is\\s+green|(?:is|was)\\s+successful|works|→\\s*0|通过|通過|成功|执行成功|執行成功|が?(?:成功|パス|通り)(?:しました|した|ました)?)';
const COMMAND_PATTERNS: RegExp[] = [
  new RegExp(`\`([^\`\\n]+)\`\\s*(?:[:：,，]\\s*)?${SUCCESS_WORDS}`, 'giu'),
  /\b(?:ran|executed|re-ran|reran)\s+`([^`\n]+)`\s*(?:[:—–-]\s*|,\s*)?(?:(?:all\s+)?(?:\d+\s+)?(?:(?:unit\s+)?tests?\s+)?(?:pass(?:ed|es|ing)?|green|ok)\b|successfully|and\s+it\s+passed|and\s+(?:all\s+)?(?:the\s+)?(?:\d+\s+)?tests?\s+passed|with\s+exit\s+code\s+0|cleanly|(?:exit(?:ed)?|exit code)\s*0|→\s*0|with\s+no\s+(?:errors|failures)|(?:and\s+)?(?:it\s+)?(?:passes|passed|succeeded))/giu,
  /(?:运行|運行|执行|執行)了?\s*`([^`\n]+)`\s*[，,]?\s*(?:已|都|均|全部)?\s*(?:成功|通过|通過|全部通过|全部通過)/gu,
  /`([^`\n]+)`\s*(?:を)?\s*実行(?:し(?:て|、)?|した(?:ところ)?[、,]?)\s*(?:すべて|全て)?\s*(?:成功|パス|通り|合格)/gu,
];
const INSTALL_COMMAND = /^(?:npm|pnpm|yarn|bun)$/;

/** Install commands (`npm install x`, `pip install x`) are claims about dependencies, never re-run. */
function installClaims(argv: readonly string[], context: ClaimContext): Claim[] | undefined {
  const [program = '', sub = '', ...rest] = argv;
  const names = (items: readonly string[]) =>
    items
      .filter((arg) => !arg.startsWith('-') && /^@?[\w.-]+(?:\/[\w.-]+)?(?:@[\w.^~<>=*-]+)?$/.test(arg))
      .map((arg) => arg.replace(/(?<=.)@[^/]*$/, ''));
  let packages: string[] | undefined;
  if (INSTALL_COMMAND.test(program) && /^(?:install|i|add|ci)$/.test(sub)) packages = names(rest);
  else if ((program === 'pip' || program === 'pip3') && sub === 'install')
    packages = names(rest.filter((arg) => arg !== '-r'));
  else if (
    (program === 'python' || program === 'python3') &&
    sub === '-m' &&
    rest[0] === 'pip' &&
    rest[1] === 'install'
  )
    packages = names(rest.slice(2));
  else if ((program === 'poetry' || program === 'uv' || program === 'cargo') && sub === 'add')
    packages = names(rest);
  else if (program === 'go' && sub === 'get') packages = names(rest);
  if (packages === undefined) return undefined;
  if (packages.length === 0) return [{ kind: 'dependency-installed', ...context }];
  return packages.map((name) => ({ kind: 'dependency-installed', name, ...context }));
}

function commandClaims(sentence: string, context: ClaimContext): Claim[] {
  const claims: Claim[] = [];
  for (const pattern of COMMAND_PATTERNS) {
    pattern.lastIndex = 0;
    for (let match = pattern.exec(sentence); match !== null; match = pattern.exec(sentence)) {
      const line = match[1] ?? '';
      const prefix = sentence.slice(0, match.index);
      if (EN_NEGATION.test(prefix.slice(-60)) || ZH_NEGATION.test(prefix.slice(-6))) continue;
      // A lone path is not a command (`src/a.ts` passed lint).
      if (!/\s/.test(line.trim()) && findPaths(line).length > 0) continue;
      const argv = splitCommandLine(line);
      if (argv.length === 0) continue;
      const install = installClaims(argv, context);
      if (install) {
        claims.push(...install);
        continue;
      }
      const tail = sentence.slice(match.index);
      const tests = EN_TEST_PASS.exec(tail) ?? ZH_TEST_PASS.exec(tail) ?? JA_TEST_PASS.exec(tail);
      const claim: Claim = { kind: 'command-passed', argv, ...context };
      if (tests?.groups) {
        const counted = testCount(
          tests.groups,
          tests.groups.all !== undefined || tests.groups.all2 !== undefined,
        );
        if (counted.count !== undefined || counted.all) claim.tests = counted;
      }
      claims.push(claim);
    }
  }
  return claims;
}

function checkClaims(sentence: string, hasCommand: boolean, context: ClaimContext): Claim[] {
  const claims: Claim[] = [];
  if (!hasCommand) {
    for (const pattern of [EN_TEST_PASS, ZH_TEST_PASS, JA_TEST_PASS]) {
      const match = pattern.exec(sentence);
      if (!match) continue;
      const prefix = sentence.slice(0, match.index);
      if (pattern === EN_TEST_PASS && TEST_NEGATION.test(prefix.slice(-80))) continue;
      if (
        pattern !== EN_TEST_PASS &&
        (ZH_NEGATION.test(prefix.slice(-6)) || /未|没有|沒有|失败|失敗/.test(match[0]))
      )
        continue;
      if (pattern === JA_TEST_PASS && /ませんでした|できなかった|失敗/.test(sentence.slice(match.index)))
        continue;
      const groups = match.groups ?? {};
      const tests = testCount(groups, groups.all !== undefined || groups.all2 !== undefined);
      claims.push({
        kind: 'check-passed',
        check: 'test',
        ...(tests.count !== undefined || tests.all ? { tests } : {}),
        ...context,
      });
      break;
    }
  }
  for (const { check, pattern } of CHECK_PATTERNS) {
    const match = pattern.exec(sentence);
    if (!match) continue;
    const prefix = sentence.slice(0, match.index);
    if (EN_NEGATION.test(prefix.slice(-60)) || ZH_NEGATION.test(prefix.slice(-6))) continue;
    if (/\b(?:not all|no)\s*$/i.test(prefix)) continue;
    claims.push({ kind: 'check-passed', check, ...context });
  }
  return claims;
}

// ─── git and dependencies ─────────────────────────────────────────────────────────────────────

const HASH = /\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])([0-9a-f]{7,40})\b/;

function reported(sentence: string, index: number): boolean {
  const clause = clauseBefore(sentence, index, 'en', 0);
  if (EN_NEGATION.test(clause.slice(-80))) return false;
  const lead = clause.replace(LABEL, '');
  return (
    SUBJECT_TOKENS.test((lead.split(/[,，]|\band\b|\bthen\b/i).pop() ?? lead).trim()) ||
    PASSIVE_END.test(lead)
  );
}

/**
 * Tags said to be made or deleted: "created the tag v1.2.0", "tagged HEAD~1 as v1.0.0", "deleted
 * tag v0.9", "已创建标签 v1.3.0", "タグ v1 を作成しました". A tag push ("pushed the tag") is a push.
 */
function tagClaims(sentence: string, context: ClaimContext): Claim[] {
  const claims: Claim[] = [];
  const english = [
    ...sentence.matchAll(
      /(?<![\w-])(?:(?<verb>created|made|added|cut|deleted|removed|dropped)\s+(?:the\s+|a\s+|an\s+)?(?:new\s+)?(?:annotated\s+|lightweight\s+)?(?:git\s+|release\s+|version\s+)?tags?\b|tagged\b)(?<rest>[^.;。]*(?:\.\d[^.;。]*)*)/gi,
    ),
  ];
  for (const match of english) {
    if (!reported(sentence, match.index)) continue;
    const rest = match.groups?.rest ?? '';
    const tagged = match.groups?.verb === undefined;
    const name = tagNameIn(tagged ? rest.replace(/^.*?\b(?=as\b|with\b)/i, '') : `tag ${rest}`);
    if (name === undefined || /^(?:and|to|from|for|the|on|at|it)$/i.test(name)) continue;
    const action = /^(?:deleted|removed|dropped)$/i.test(match.groups?.verb ?? '') ? 'delete' : 'create';
    const target = action === 'create' ? tagTargetIn(`${match[0]}`) : undefined;
    claims.push({ kind: 'git-tag', name, action, ...(target !== undefined ? { target } : {}), ...context });
  }
  if (english.length > 0) return claims;
  const cjk =
    /(?<verb>创建|創建|新建|打|添加|删除|刪除|移除)了?\s*(?:一个|一個)?\s*(?:git\s*)?(?:标签|標籤|tag)\s*(?<name>[`'"「]?[\w./+-]+)|タグ\s*(?<ja>[`'"「]?[\w./+-]+)[`'"」]?\s*を\s*(?<javerb>作成|付け|削除)(?:しました|した|ました)/u.exec(
      sentence,
    );
  if (cjk && !ZH_NEGATION.test(sentence.slice(0, cjk.index).slice(-6))) {
    const name = (cjk.groups?.name ?? cjk.groups?.ja ?? '').replace(/^[`'"「]/, '').replace(/[.,]+$/, '');
    const verb = cjk.groups?.verb ?? cjk.groups?.javerb ?? '';
    if (name !== '')
      claims.push({
        kind: 'git-tag',
        name,
        action: /删除|刪除|移除|削除/u.test(verb) ? 'delete' : 'create',
        ...context,
      });
  }
  return claims;
}

function gitClaims(sentence: string, context: ClaimContext): Claim[] {
  const claims: Claim[] = [];
  const commit =
    /(?<![\w-])(?:committed|made\s+(?:a|the)\s+commit|created\s+(?:a\s+|the\s+)?(?:new\s+)?commit)\b/i.exec(
      sentence,
    );
  if (commit && reported(sentence, commit.index)) {
    const hash = HASH.exec(sentence.slice(commit.index))?.[1] ?? HASH.exec(sentence)?.[1];
    claims.push({ kind: 'git-commit', ...(hash ? { hash } : {}), ...context });
  }
  const zhCommit =
    /(?:已经|已經|已|成功)?\s*提交(?:了|完成|成功)|已经?\s*提交|コミット(?:しました|した|済み|済|いたしました)/u.exec(
      sentence,
    );
  if (
    !commit &&
    zhCommit &&
    !ZH_NEGATION.test(sentence.slice(0, zhCommit.index).slice(-6)) &&
    !/ませんでした|できなかった/.test(sentence)
  ) {
    const hash = HASH.exec(sentence)?.[1];
    claims.push({ kind: 'git-commit', ...(hash ? { hash } : {}), ...context });
  }
  const branch =
    /(?<![\w-])(?:created|made|checked\s+out|switched\s+to)\s+(?:a\s+|the\s+)?(?:new\s+)?(?:git\s+)?branch\s+(?:named\s+|called\s+)?[`'"]?([\w./-]+)[`'"]?/i.exec(
      sentence,
    ) ??
    /(?:创建|創建|新建|建立)了?\s*(?:一个|一個)?\s*(?:新的?)?\s*分支\s*[`'"「]?([\w./-]+)|ブランチ\s*[`'"「]?([\w./-]+)[`'"」]?\s*を\s*(?:新規)?作成(?:しました|した)/u.exec(
      sentence,
    );
  const branchName = branch?.[1] ?? branch?.[2];
  if (branch && branchName && !/^(?:and|to|from|for|the)$/i.test(branchName)) {
    const ok = /^[a-z]/i.test(branch[0])
      ? reported(sentence, branch.index)
      : !ZH_NEGATION.test(sentence.slice(0, branch.index).slice(-6));
    if (ok) claims.push({ kind: 'git-branch', name: branchName.replace(/[.,]+$/, ''), ...context });
  }
  claims.push(...tagClaims(sentence, context));
  const push = /(?<![\w-])pushed\b(?<rest>[^.;。]*)/i.exec(sentence);
  const zhPush = /(?:已经?|成功)?\s*推送(?:了|到|至|成功)|プッシュ(?:しました|した|済み)/u.exec(sentence);
  if (
    (push && reported(sentence, push.index)) ||
    (!push && zhPush && !ZH_NEGATION.test(sentence.slice(0, zhPush.index).slice(-6)))
  ) {
    const rest = push?.groups?.rest ?? sentence.slice(zhPush?.index ?? 0);
    const remote = /\b(?:to|到|至)\s*[`'"]?(origin|upstream|[\w-]+)(?:\/([\w./-]+))?/.exec(rest);
    const claim: Claim = { kind: 'git-push', ...context };
    if (remote?.[1] && !/^(?:the|a|remote|github|gitlab)$/i.test(remote[1])) claim.remote = remote[1];
    const named = remote?.[2] ?? /\bbranch\s+[`'"]?([\w./-]+)/.exec(rest)?.[1];
    if (named && !/^(?:to|and|the|a|on|from|for|upstream|remote)$/i.test(named))
      claim.branch = named.replace(/[.,]+$/, '');
    claims.push(claim);
  }
  return claims;
}

const PACKAGE_NAME = /^@?[a-z0-9][\w.-]*(?:\/[\w.-]+)?$/i;
const NOT_PACKAGES = new Set(
  'the a an it them all dependencies dependency deps packages package modules module requirements everything and with via using from to as in for its new missing required needed project tools'.split(
    ' ',
  ),
);

const ADDED_DEPENDENCY = new RegExp(
  `(?<![\\w-])added\\s+[\`'"]?(@?[\\w./-]+)[\`'"]?\\s+(?:as\\s+a\\s+)?(?:dev\\s*)?(?:dependency|dev-dependency|devDependency)\\b(?!${IN_MANIFEST_SOURCE})`,
  'i',
);

function dependencyClaims(sentence: string, context: ClaimContext): Claim[] {
  const claims: Claim[] = [];
  const en = /(?<![\w-])installed\s+(?<list>[^.;:。]*)/i.exec(sentence);
  if (en && reported(sentence, en.index)) {
    const names = (en.groups?.list ?? '')
      .split(/,|\band\b|\s+/)
      .map((word) => word.trim().replace(/^[`'"]|[`'"]$/g, ''))
      .filter((word) => word !== '');
    const found: string[] = [];
    for (const word of names) {
      const lower = word.toLowerCase();
      if (/^(?:as|with|via|using|from|to|in|for|into|so)$/.test(lower)) break;
      if (NOT_PACKAGES.has(lower) || !PACKAGE_NAME.test(word)) continue;
      found.push(word.replace(/(?<=.)@[^/]*$/, ''));
    }
    if (found.length === 0) claims.push({ kind: 'dependency-installed', ...context });
    for (const name of found) claims.push({ kind: 'dependency-installed', name, ...context });
  }
  // "added X as a dev dependency in package.json" reports the manifest's entry (a file claim), not an install.
  const added = ADDED_DEPENDENCY.exec(sentence);
  if (added?.[1] && reported(sentence, added.index))
    claims.push({ kind: 'dependency-installed', name: added[1], ...context });
  const zh = /(?:已经?|成功)?\s*安装了?\s*[`'"「]?(@?[\w./-]+)?/u.exec(sentence);
  if (
    zh &&
    /安装/.test(zh[0]) &&
    !ZH_NEGATION.test(sentence.slice(0, zh.index).slice(-6)) &&
    /已|了|成功/.test(zh[0] + sentence.slice(zh.index + zh[0].length, zh.index + zh[0].length + 2))
  ) {
    const name = zh[1];
    claims.push({
      kind: 'dependency-installed',
      ...(name && !NOT_PACKAGES.has(name.toLowerCase()) ? { name } : {}),
      ...context,
    });
  }
  const ja = /[`'"「]?(@?[\w./-]+)?[`'"」]?\s*を?\s*インストール(?:しました|した|済み)/u.exec(sentence);
  if (ja && !/ませんでした|できなかった/.test(sentence)) {
    const name = ja[1];
    claims.push({ kind: 'dependency-installed', ...(name ? { name } : {}), ...context });
  }
  return claims;
}

// ─── entry points ─────────────────────────────────────────────────────────────────────────────

/**
 * Extracts checkable claims from free text (a step's notes or final answer) in English, Chinese
 * and Japanese. A claim is an action on an object reported as done:
 * - files created, modified, deleted, renamed or moved ("created src/a.ts", "已修改 auth.ts",
 *   "src/a.ts を作成しました", "Renamed a.ts to b.ts", "`src/a.ts`: replaced the loop", paths in
 *   「」, code fences that list paths, markdown tables of changes);
 * - symbols added ("added function validateToken in auth.ts", "在 auth.ts 中加入了 validateToken 函數");
 * - commands and checks that passed, with test counts ("`npm test` passes", "all 8 tests pass",
 *   "测试全部通过", "テストがすべてパスしました");
 * - git commits, branches and pushes; installed dependencies.
 * A path merely mentioned ("based on the Id type in src/types.ts", "the helper defined in x.ts")
 * is not a claim; negated or intended actions ("could not create", "will add", "未能修改",
 * "作成できませんでした") are not claims either.
 *
 * @example
 * extractClaims('[SUCCESS]: created `src/a.ts`, all 4 tests pass');
 * // [{ kind: 'check-passed', check: 'test', tests: { count: 4, all: true }, … }, { kind: 'file-written', file: 'src/a.ts', action: 'created', … }]
 */
export function extractClaims(text: string, source: ClaimSource = 'notes'): Claim[] {
  // A pure function of its text, asked again for the same texts (a step re-verified, the goal
  // check re-reading every step, steps that report alike): remember recent answers (bounded) and
  // hand out copies, so a caller that changes its claims changes nothing remembered.
  if (typeof text !== 'string' || text.length > memoTextLimit) return extract(text, source);
  const key = `${source}\u0000${text}`;
  let claims = claimMemo.get(key);
  if (claims === undefined) {
    claims = extract(text, source);
    if (claimMemo.size >= memoEntryLimit) claimMemo.clear();
    claimMemo.set(key, claims);
  }
  return claims.length === 0 ? [] : (copyPlain(claims) as Claim[]);
}

/** Remembered answers of {@link extractClaims}: at most this many, … */
const memoEntryLimit = 1024;
/** … of texts at most this long. */
const memoTextLimit = 8192;
const claimMemo = new Map<string, Claim[]>();

/** A deep copy of plain data (objects, arrays, primitives): what claims are made of. */
function copyPlain(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(copyPlain);
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) copy[key] = copyPlain((value as Record<string, unknown>)[key]);
  return copy;
}

function extract(text: string, source: ClaimSource): Claim[] {
  const body = text.trim().replace(/^\[(?:SUCCESS|FAIL)\]\s*:?\s*/i, '');
  if (body === '') return [];
  const claims: Claim[] = [];
  for (const sentence of splitSentences(normalizeLayout(body))) {
    const context: ClaimContext = { source, text: shorten(sentence) };
    const commands = commandClaims(sentence, context);
    claims.push(
      ...commands,
      ...checkClaims(
        sentence,
        commands.some((claim) => claim.kind === 'command-passed'),
        context,
      ),
      ...gitClaims(sentence, context),
      ...dependencyClaims(sentence, context),
      ...effectClaims(sentence, context),
    );
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
    const context = { source: 'claims' as const, text: `\`${command.argv.join(' ')}\` passed` };
    const install = installClaims(command.argv, context);
    if (install) claims.push(...install);
    else claims.push({ kind: 'command-passed', argv: [...command.argv], ...context });
  }
  // Claims stored before tags were a field have none.
  for (const tag of stepClaims.tags ?? []) {
    const on = tag.target !== undefined ? ` on ${tag.target}` : '';
    claims.push({
      kind: 'git-tag',
      name: tag.name,
      action: tag.action,
      ...(tag.target !== undefined ? { target: tag.target } : {}),
      source: 'claims',
      text: `${tag.action === 'create' ? 'created' : 'deleted'} the git tag ${tag.name}${on}`,
    });
  }
  return dedupeClaims(claims);
}
