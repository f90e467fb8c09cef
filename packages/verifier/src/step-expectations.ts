import { asksAnnotatedTag, type TagAction, tagNameIn, tagTargetIn } from './asked-tags';
import { symbolsAt } from './extract-claims';
import { findPaths } from './find-paths';
import { IN_MANIFEST_SOURCE } from './package-manifests';
import { splitCommandLine } from './split-command-line';

/** An outcome a step description asks for. */
export type ExpectedOutcome =
  | 'write'
  | 'delete'
  | 'test'
  | 'run'
  | 'install'
  | 'commit'
  | 'push'
  | 'branch'
  | 'tag'
  | 'read';

/** What a step was asked to do, read from its description (imperative verbs in EN/ZH/JA). */
export interface StepExpectations {
  outcomes: ReadonlySet<ExpectedOutcome>;
  /** Files the step was asked to create. */
  create: string[];
  /** Files the step was asked to change (objects of fix/update, targets of "add X to Y"). */
  change: string[];
  /**
   * Files named together in one list as the object or the place of a change ("Set `debug` in
   * a.json, b.json and c.json", "Update src/a.js and src/b.js"): each of them must change, where
   * `change` alone is satisfied by any one.
   */
  changeEach: string[];
  /** Files the step was asked to delete. */
  remove: string[];
  /** Files the step was asked to rename or move ("Rename src/a.ts to src/b.ts"): gone from `from`, at `to`. */
  move: { from: string; to: string }[];
  /** Commands named in backticks (`npm run build`). */
  commands: string[][];
  /** Packages named for installation. */
  packages: string[];
  /** Git tags the step was asked to create or delete (outcome `tag`). */
  tags: TagAction[];
  /** Symbols the step was asked to add ("Add isPrime to src/math.js", "exporting isPrime(n)"). */
  symbols: { name: string; file?: string; exported?: true }[];
  /** The step is a fix (test tampering matters). */
  fix: boolean;
  /** The description makes tests themselves the object of the work ("update the tests"). */
  testsAreTarget: boolean;
  /** The verbs that set the outcomes, for messages. */
  verbs: string[];
  /**
   * The step itself was asked to run the tests ("Run the tests"); otherwise passing tests are
   * only the purpose of its work ("fix X so the tests pass") and the verifier runs them itself.
   */
  runTests: boolean;
}

const EN_WRITE_CREATE =
  'create|write|add|implement|generate|scaffold|introduce|define|declare|export|set\\s+up|setup|initiali[sz]e|bootstrap|author|draft|compose|produce|develop|code|port|translate|document|configure|build\\s+(?:a|an|the\\s+new|new)\\b|make\\s+(?:a|an|new)\\b|put|save|store|emit|record|fill\\s+in|provide|support|wire\\s+up|hook\\s+up|expose';
const EN_WRITE_MODIFY =
  'handle|set(?!\\s+up)|toggle|turn\\s+(?:on|off)|increase|decrease|raise|lower|switch|flip|pin|update|modify|edit|change|fix|patch|refactor|rewrite|adjust|amend|replace|tweak|correct|improve|clean\\s+up|rework|restructure|reorgani[sz]e|convert|migrate|upgrade|extend|simplify|optimi[sz]e|format|append|insert|integrate|import|extract|rename|move|relocate|repair|debug|resolve|harden|complete|finish|bump|enable|disable|inline|split|merge|sort|normali[sz]e|deduplicate|localize|translate|escape|memoi[sz]e|saniti[sz]e|make(?=\\s+(?:the\\s+)?[\\w.$]+\\s+(?:in|of)\\s+[\\w./-]+\\.\\w+\\s)';
const EN_DELETE = 'delete|remove|drop|purge|erase|unlink|get\\s+rid\\s+of';
const EN_RUN = 'run|execute|compile|lint|type-?check|start|launch|invoke|build(?!\\s+(?:a|an|new)\\b)';
const EN_TEST = 'test|verify|validate|ensure|make\\s+sure|confirm';
const EN_READ =
  'read|inspect|review|analy[sz]e|examine|explore|investigate|look\\s+(?:at|into|through|for)|list|find|search|locate|identify|understand|summari[sz]e|explain|describe|report|determine|check|audit|measure|count|compare|diagnose|study|scan|survey|assess|evaluate|research|figure\\s+out|learn|plan|outline|gather|collect|enumerate|map\\s+out|trace|answer';

/**
 * A file named as the place of the work before the verb of its clause: "In src/days.ts export…",
 * "Inside the file `app/x.py`, add…" (group 1: the file).
 */
const PLACE_LEAD =
  /(?:^|[\s(])(?:in|inside|within)\s+(?:the\s+)?(?:file\s+|module\s+)?[`'"]?((?:[\w@~.-]+\/)*[\w@~-][\w@~.-]*\.[A-Za-z]\w{0,5})[`'"]?(?:\s+(?:file|module))?\s*,?\s*$/i;

/** A whole word, not part of a flag, a path or a file name (`--test`, `test/a.js`). */
const WORD_START = '(?<![\\w./-])';
const WORD_END = '(?![\\w/-]|\\.\\w)';

const EN_IMPERATIVE = new RegExp(
  [
    // "Add X as a dev dependency" installs X; "… in package.json" (a manifest named) asks for the
    // manifest entry only: a write, judged by the manifest.
    `(?<install>\\binstall\\b|\\badd\\s+(?:[\`'"]?@?[\\w./-]+[\`'"]?\\s+)?(?:as\\s+a\\s+)?(?:dev\\s*)?dependenc(?:y|ies)\\b(?!${IN_MANIFEST_SOURCE}))`,
    // Before commit, create and delete: "Tag the previous commit (HEAD~1) as v1.0.0" is one tag ask.
    '(?<untag>\\b(?:delete|remove|drop)\\s+(?:the\\s+|a\\s+|an\\s+)?(?:old\\s+|stale\\s+)?(?:git\\s+|release\\s+|version\\s+)?tag\\b)',
    '(?<tag>\\b(?:create|make|add|cut|apply|put)\\s+(?:a\\s+|an\\s+|the\\s+)?(?:new\\s+)?(?:annotated\\s+|lightweight\\s+)?(?:git\\s+|release\\s+|version\\s+)?tag\\b|\\btag\\s+(?:[^.;,\\n]{0,60}?\\s)?(?:as|with\\s+(?:the\\s+)?(?:name|tag))\\s|\\btag\\s+(?=[`\'"]?v?\\d))',
    '(?<commit>\\bcommit\\b)',
    '(?<push>\\bpush\\b)',
    '(?<branch>\\b(?:create|make|check\\s+out|start)\\s+(?:a\\s+)?(?:new\\s+)?(?:git\\s+)?branch\\b)',
    `(?<create>${WORD_START}(?:${EN_WRITE_CREATE})${WORD_END})`,
    `(?<modify>${WORD_START}(?:${EN_WRITE_MODIFY})${WORD_END})`,
    `(?<delete>${WORD_START}(?:${EN_DELETE})${WORD_END})`,
    `(?<test>${WORD_START}(?:${EN_TEST})${WORD_END})`,
    `(?<run>${WORD_START}(?:${EN_RUN})${WORD_END})`,
    `(?<read>${WORD_START}(?:${EN_READ})${WORD_END})`,
  ].join('|'),
  'gi',
);

const ZH_IMPERATIVE =
  /(?<untag>(?:删除|刪除|移除|删掉|刪掉)\s*(?:git\s*)?(?:标签|標籤|tag))|(?<tag>(?:(?:为|為|给|給|在)\s*)?(?:(?:当前|當前|最新|上一个|上一個|这个|這個)\s*的?\s*提交\s*上?\s*)?(?:创建|創建|新建|打|添加)\s*(?:一个|一個)?\s*(?:新的?)?\s*(?:git\s*)?(?:标签|標籤|tag))|(?<install>安装|安裝)|(?<commit>提交)|(?<push>推送)|(?<branch>(?:创建|新建|建立)\s*(?:一个|新的?)?\s*分支)|(?<delete>删除|刪除|移除|删掉|刪掉|去掉|去除)|(?<modify>修改|更新|编辑|編輯|修复|修復|修正|重构|重構|调整|調整|优化|優化|替换|替換|迁移|遷移|升级|升級|重命名|改名|移动|移動|完善|改进|改進|改写|改寫|补全|補全)|(?<create>创建|創建|新建|新增|添加|增加|加入|编写|編寫|撰写|撰寫|写|寫|实现|實現|实作|實作|生成|定义|定義|搭建|初始化|配置|开发|開發|补充|補充|导出|導出)|(?<test>测试|測試|验证|驗證|确保|確保)|(?<run>运行|運行|执行|執行|构建|構建|编译|編譯|跑)|(?<read>阅读|閱讀|查看|检查|檢查|分析|调查|調查|列出|查找|搜索|确认|確認|总结|總結|解释|解釋|审查|審查|了解|评估|評估|研究|找出|统计|統計)/gu;

const JA_IMPERATIVE =
  /(?<untag>タグ\s*[`'"「]?[\w./+-]*[`'"」]?\s*を削除)|(?<tag>(?:(?:現在の|最新の|直前の|この)?コミットに\s*)?(?:[`'"「]?[\w./+-]+[`'"」]?\s*(?:という)?\s*)?タグ\s*(?:[`'"「]?[\w./+-]+[`'"」]?\s*)?を?\s*(?:作成|付け|打|追加))|(?<install>インストール)|(?<commit>コミット)|(?<push>プッシュ)|(?<branch>ブランチを(?:新規)?作成)|(?<delete>削除|除去)|(?<modify>修正|更新|変更|編集|改修|リファクタ(?:リング)?|最適化|移行|置換|置き換え|リネーム|名前を変更|移動|改善|書き換え|直)|(?<create>新規作成|作成|追加|実装|生成|定義|構築|初期化|設定|書|作)|(?<test>テスト|検証|確かめ)|(?<run>実行|ビルド|コンパイル)|(?<read>読|確認|調査|分析|一覧|検索|探|レビュー|要約|説明|把握|調べ)/gu;

/** What may stand before an English imperative in its clause ("Then run", "please add", "1. Create"). */
const IMPERATIVE_LEAD =
  /^(?:\s*(?:please|and|then|also|first|firstly|second|next|finally|lastly|now|just|to|must|should|shall|you|we|i|need|needs|can|could|will|would|let's|lets|let\s+us|make\s+sure\s+to|be\s+sure\s+to|try\s+to|in\s+order\s+to|so\s+as\s+to|carefully|quickly|properly|correctly|fully|simply|again|re-|step\s+\d+|\d+[.)]|[-*•>#]|\*\*)[\s,]*)*\s*$/i;

const NEGATED_EN =
  /\b(?:do\s+not|don't|never|without|no\s+need\s+to|must\s+not|should\s+not|shouldn't|avoid|instead\s+of|rather\s+than|not)\s+(?:\w+\s+){0,2}$/i;
const CONTEXT_EN =
  /\b(?:based\s+on|using|like|as\s+in|see|per|following|according\s+to|which|that|the\s+\w+\s+(?:you|we|step))\s+(?:\w+\s+){0,3}$/i;
const NEGATED_CJK = /(?:不要|不得|不可|不能|禁止|无需|無需|不用|别|別|勿|しない|せず|しないで)\s*$/u;

const TEST_PASS_PHRASE =
  /\b(?:(?:the\s+)?tests?\s+(?:pass|passes|still\s+pass|are\s+green)|make\s+(?:the\s+)?(?:failing\s+)?[\w./-]*(?:tests?|specs?)[\w./-]*\s+(?:pass|green)\b|(?:run|execute|re-?run)\s+(?:the\s+|all\s+(?:the\s+)?)?(?:unit\s+)?(?:tests?|test\s+suite|specs?)|test\s+suite\s+(?:passes|is\s+green)|`(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?test[^`]*`|`node\s+--test[^`]*`|`(?:npx\s+)?(?:vitest|jest|mocha|pytest)[^`]*`|`go\s+test[^`]*`|`cargo\s+test[^`]*`)|(?:运行|運行|执行|執行|跑)\s*(?:所有|全部)?\s*(?:单元)?(?:测试|測試)|(?:测试|測試)\s*(?:全部|都)?\s*(?:通过|通過)|テスト(?:を)?\s*(?:実行|走らせ)|テスト(?:が|を)?\s*(?:すべて)?\s*(?:通|パス|合格)/iu;
const TEST_WORDS =
  /\b(?:tests?|specs?|test\s+(?:file|case|suite|data)s?|assertions?|expectations?|snapshots?|golden\s+(?:files?|outputs?)|expected\s+outputs?)\b|测试|測試|テスト/iu;

function categoryOf(
  groups: Record<string, string | undefined>,
): ExpectedOutcome | 'create' | 'modify' | 'untag' | undefined {
  if (groups.untag) return 'untag';
  if (groups.tag) return 'tag';
  if (groups.install) return 'install';
  if (groups.commit) return 'commit';
  if (groups.push) return 'push';
  if (groups.branch) return 'branch';
  if (groups.create) return 'create';
  if (groups.modify) return 'modify';
  if (groups.delete) return 'delete';
  if (groups.test) return 'test';
  if (groups.run) return 'run';
  if (groups.read) return 'read';
  return undefined;
}

/** Nouns that make a backticked name code to remove ("`console.log` calls", "the `x` helper"). */
const CODE_NOUN_AFTER =
  /^\s*(?:calls?|uses?|usages?|references?|statements?|imports?|invocations?|functions?|helpers?|methods?|class(?:es)?|variables?|constants?|fields?|comments?|flags?|options?|parameters?|arguments?|props?|decorators?|annotations?|exports?|types?|interfaces?|hooks?|handlers?|checks?|routes?|endpoints?|blocks?)\b/i;
const CODE_NOUN_BEFORE =
  /\b(?:calls?|uses?|usages?|references?|instances?|occurrences?|invocations?|imports?|mentions?)\s+(?:of|to)\s+(?:the\s+)?(?:deprecated\s+|old\s+|legacy\s+|unused\s+)?$/i;

/**
 * What stands before "from/in <folder>/" when code is taken out of the folder's files, not the
 * folder deleted: words other than "all the files / contents / everything" ("every console.log
 * call from the files").
 */
const REMOVED_FROM =
  /\b(?!(?:all|every|each|the|any|of|files?|contents?|everything|folders?|directories|directory|dirs?|subfolders?|from|in|inside|within|old|stale|generated|build|temp|temporary|empty)\b)[A-Za-z_$][\w$.]*/i;

/** A method's class named after it: "… method … to class Circle", "… method … on the `Circle` class". */
const METHOD_OF =
  /\bmethods?\b[^.;\n]*?\b(?:to|on|in|into|of|for)\s+(?:the\s+)?(?:(?:class|struct|type)\s+[`'"]?(?<a>[A-Za-z_$][\w$]*)[`'"]?|[`'"]?(?<b>[A-Za-z_$][\w$]*)[`'"]?\s+(?:class|struct)\b)/i;

/** What joins two files of one list: a comma, "and", "&", "as well as", 、/和/与/及. */
const LIST_JOIN =
  /^[`'"]?\s*(?:,\s*(?:and\s+|&\s*|as\s+well\s+as\s+|plus\s+)?|(?:and|&|as\s+well\s+as|plus)\s+|[、，]\s*|\s*[和与與及]\s*)(?:the\s+(?:file\s+)?)?[`'"]?$/iu;

/**
 * The files of `segment` (a verb's object) that form one list with a file already taken as the
 * change's object or place (`change`): "a.json, b.json and c.json" → all three, when a.json is.
 * Files are joined by commas, "and", "&", "as well as" or a CJK joiner.
 */
function listedTogether(segment: string, change: readonly string[]): string[] {
  const found = findPaths(segment);
  const lists: string[][] = [];
  let current: string[] = [];
  for (const [index, entry] of found.entries()) {
    const previous = found[index - 1];
    const rawEnd =
      previous === undefined ? -1 : segment.indexOf(previous.file, previous.index) + previous.file.length;
    const joined = previous !== undefined && rawEnd > 0 && LIST_JOIN.test(segment.slice(rawEnd, entry.index));
    if (!joined) {
      if (current.length > 1) lists.push(current);
      current = [];
    }
    current.push(entry.file);
  }
  if (current.length > 1) lists.push(current);
  return lists.filter((list) => list.some((file) => change.includes(file))).flat();
}

/**
 * Reads what a step was asked to do from its description: the verb mapping of the goal criteria
 * (create/write/add/implement → write; fix/update/refactor → write; delete/remove → delete;
 * run/build → run; test/"make sure the tests pass" → test; install → install; commit, push,
 * branch; read/inspect/review/analyse/list → read), in English, Chinese and Japanese, with the
 * files named as objects ("Create src/a.ts" → create; "Add isPrime to src/math.js" → change;
 * "Delete old.js" → delete). Negated verbs ("do not modify the API") and verbs of context
 * ("based on", "using") are ignored.
 *
 * @example
 * stepExpectations('Write src/is-prime.js exporting isPrime(n).');
 * // { outcomes: Set { 'write' }, create: ['src/is-prime.js'], … }
 */
export function stepExpectations(description: string): StepExpectations {
  const outcomes = new Set<ExpectedOutcome>();
  const create: string[] = [];
  const change: string[] = [];
  const remove: string[] = [];
  const move: { from: string; to: string }[] = [];
  const changeEach: string[] = [];
  const verbs: string[] = [];
  const tags: TagAction[] = [];
  let fix = false;
  let testsAreTarget = false;
  let runTests = false;
  const symbols: { name: string; file?: string; exported?: true }[] = [];
  const text = description.replace(/\r\n?/g, '\n');
  const japanese = /[\u3040-\u30ff]/u.test(text);
  const hits: {
    index: number;
    end: number;
    category: NonNullable<ReturnType<typeof categoryOf>>;
    word: string;
    /** The file a leading "In <file>" names as the place of the work. */
    place?: string;
  }[] = [];
  for (const pattern of [EN_IMPERATIVE, japanese ? JA_IMPERATIVE : ZH_IMPERATIVE]) {
    pattern.lastIndex = 0;
    for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
      const category = categoryOf(match.groups ?? {});
      if (category === undefined) continue;
      const before = text.slice(Math.max(0, match.index - 40), match.index);
      if (pattern === EN_IMPERATIVE && (NEGATED_EN.test(before) || CONTEXT_EN.test(before))) continue;
      if (pattern !== EN_IMPERATIVE && NEGATED_CJK.test(before)) continue;
      if (
        pattern === JA_IMPERATIVE &&
        /^(?:しない|せず|しないで|不要)/u.test(text.slice(match.index + match[0].length))
      )
        continue;
      // English verbs are commands only at the head of a clause ("Create…", "then run…"), never
      // inside a noun phrase ("the failing test", "whose test script").
      // …or after the place the work happens in ("In src/days.ts export…", "Inside app/x.py, add…").
      let place: string | undefined;
      if (pattern === EN_IMPERATIVE) {
        const window = text.slice(Math.max(0, match.index - 200), match.index);
        const placed = PLACE_LEAD.exec(window);
        const lead =
          (placed ? window.slice(0, placed.index) : window).split(/[.;:!?\n,(]|\b(?:and|then|or)\b/i).pop() ??
          '';
        if (!IMPERATIVE_LEAD.test(lead)) continue;
        place = placed?.[1];
      }
      const after = text.slice(match.index + match[0].length, match.index + match[0].length + 24);
      if (
        pattern === EN_IMPERATIVE &&
        (category === 'test' || category === 'run' || category === 'read') &&
        /^\s+(?:script|scripts|file|files|suite|suites|case|cases|runner|command|step|output|results?|coverage|directory|folder|data|fixtures?|harness|framework|helper|tool|mode|config)\b/i.test(
          after,
        )
      )
        continue;
      let kind: typeof category | undefined = category;
      // "Remove the tag from index.html": an HTML tag, not a git one (a git tag has a name like a
      // version, or git / release / version around it).
      if (
        (category === 'tag' || category === 'untag') &&
        tagNameIn(`${match[0]}${after}`) === undefined &&
        !/\bgit\b|\breleases?\b|\bversions?\b|标签|標籤|タグ/iu.test(`${match[0]}${after}`)
      )
        kind =
          pattern === EN_IMPERATIVE &&
          !/^(?:create|make|add|cut|apply|put|delete|remove|drop)\b/i.test(match[0])
            ? undefined
            : category === 'tag'
              ? 'create'
              : 'delete';
      if (kind === undefined) continue;
      hits.push({
        index: match.index,
        end: match.index + match[0].length,
        category: kind,
        word: match[0],
        ...(place !== undefined ? { place } : {}),
      });
    }
  }
  hits.sort((a, b) => a.index - b.index);
  hits.forEach((hit, position) => {
    const next = hits[position + 1];
    // The verb's object, up to the end of its sentence or a phrase of context ("based on X").
    const segment =
      text
        .slice(hit.end, next ? next.index : text.length)
        .split(
          /[;。；\n]|\.(?=\s|$)|,?\s*\b(?:based\s+on|using|according\s+to|following|similar\s+to|like|see|as\s+in|per|referencing|modell?ed\s+on)\b|(?:根据|根據|基于|基於|参考|參考)/iu,
        )[0] ?? '';
    const word = hit.word.toLowerCase();
    verbs.push(hit.word);
    if (/^(?:fix|repair|debug|resolve|correct)$|修复|修復|修正|直/u.test(word)) fix = true;
    const category = hit.category;
    const paths = findPaths(japanese ? text.slice(Math.max(0, hit.index - 80), hit.index) : segment).map(
      (found) => found.file,
    );
    switch (category) {
      case 'create':
      case 'modify': {
        // "Create an empty commit", "make a blank commit": a commit with no file written.
        if (/^\s*(?:an?\s+|the\s+|one\s+)?(?:new\s+)?(?:empty|blank)\s+commit\b/i.test(segment)) {
          outcomes.add('commit');
          break;
        }
        outcomes.add('write');
        const objectEnd = japanese
          ? -1
          : segment.search(
              /\b(?:to|into|in|inside|within|under|at|from|of|for|with|using|based|like|so|that|which|exporting|containing|where)\b|[到至为為在]/iu,
            );
        let created = false;
        for (const found of findPaths(japanese ? '' : segment)) {
          const isObject = objectEnd === -1 || found.index < objectEnd;
          const prefix = segment.slice(0, found.index);
          const location =
            /\b(?:to|into|in|inside|within|under|at)\s+(?:the\s+)?(?:file\s+)?[`'"「]?$/i.test(prefix) ||
            /(?:到|至|在|于|於)\s*[`'"「]?$/u.test(prefix);
          // "Add fr.json with a translation of every key in en.json": once the new file is named,
          // a file "in" the rest of the clause is what it is made from, not a place to change.
          const madeFrom =
            category === 'create' &&
            !isObject &&
            created &&
            /\b(?:in|inside|within)\s+(?:the\s+)?(?:file\s+)?[`'"「]?$/i.test(prefix);
          if (category === 'create' && isObject) {
            create.push(found.file);
            created = true;
          } else if ((isObject || location) && !madeFrom) change.push(found.file);
        }
        // "Rename src/a.ts to src/b.ts", "Move the file lib/x.js into src/x.js": the file itself
        // goes to the new path (not "Move `parse` from a.js to b.js", where code moves).
        if (/^(?:rename|move|relocate)$/.test(word) && !japanese) {
          const [from, to] = findPaths(segment);
          if (
            from !== undefined &&
            to !== undefined &&
            /^\s*(?:the\s+)?(?:file\s+)?[`'"]?$/i.test(segment.slice(0, from.index)) &&
            /\b(?:to|into|as)\s+(?:the\s+)?(?:file\s+)?[`'"]?$/i.test(segment.slice(0, to.index))
          )
            move.push({ from: from.file, to: to.file });
        }
        // "In src/days.ts export isWeekend": the file named first is where the work goes.
        if (hit.place !== undefined && !change.includes(hit.place) && !create.includes(hit.place))
          change.push(hit.place);
        if (category === 'modify' && !japanese) changeEach.push(...listedTogether(segment, change));
        if (japanese) {
          for (const file of paths) (category === 'create' ? create : change).push(file);
        }
        if (category === 'create' && !japanese) {
          const holder = findPaths(segment)[0]?.file ?? hit.place;
          const named = symbolsAt(segment, holder !== undefined).map((symbol) => symbol.name);
          // "Export X from Y", "Create Y exporting X": X must be exported, not only declared.
          const exported = new Set(/^export\b/.test(word) ? named : []);
          // A conjunction is never a name ("exporting a and b" names a).
          for (const match of segment.matchAll(
            /\b(exporting|that\s+exports?|which\s+exports?|defining|with\s+(?:a\s+|an\s+|the\s+)?(?:function|method|class|helper))\s+(?:(?:a|an|the|one)\s+(?!(?:and|or|nor)\b|,))?(?:(?:new\s+)?(?:async\s+)?(?:function|method|class|helper|constant|const|variable|type|interface)\s+(?:named\s+|called\s+)?)?[`'"]?([A-Za-z_$][\w$]*)/gi,
          ))
            if (match[2] && !/^(?:and|or|nor|then)$/i.test(match[2])) {
              named.push(match[2]);
              if (/export/i.test(match[1] ?? '')) exported.add(match[2]);
            }
          // "Create Y with `add` and `multiply`": the names listed after with / containing, when
          // they read as code (backticks, `name()`, camelCase, snake_case).
          const listed =
            /\b(?:with|containing|that\s+(?:has|defines))\s+(?:the\s+)?(?:functions?\s+|methods?\s+|helpers?\s+)?((?:(?:`[^`\n]+`|[A-Za-z_$][\w$]*(?:\(\))?)(?:\s*,\s*|\s*,?\s+and\s+|\s*$|\s+(?=(?:functions?|methods?|helpers?)\b)))+)/i.exec(
              segment,
            )?.[1];
          for (const raw of listed?.split(/\s*,\s*|\s+and\s+|\s+/) ?? []) {
            const item = raw.trim();
            const name = item.replace(/^`|`$/g, '').replace(/\(\)$/, '');
            if (!/^[A-Za-z_$][\w$]*$/.test(name)) continue;
            if (/^`|\(\)$/.test(item) || /[a-z\d][A-Z]|_/.test(name)) named.push(name);
          }
          // "Add a method `area` to class Circle", "an `area` method on the Circle class": the
          // method belongs to that class (`Circle.area`), a top-level `area` is not it.
          const owner = METHOD_OF.exec(segment);
          const container = owner?.groups?.a ?? owner?.groups?.b;
          for (const raw of new Set(named)) {
            const name =
              container !== undefined && raw !== container && !raw.includes('.')
                ? `${container}.${raw}`
                : raw;
            symbols.push({
              name,
              ...(holder !== undefined ? { file: holder } : {}),
              ...(exported.has(raw) ? { exported: true as const } : {}),
            });
          }
        }
        // "Update the tests" makes the tests the work; "fix the failing test" asks for the code
        // to pass it (unless the test itself is said to be wrong).
        const objectText =
          segment.split(/\b(?:so|to\s+make|until|and\s+(?:make\s+sure|ensure)|then)\b/i)[0] ?? '';
        const fixVerb = /^(?:fix|repair|debug|resolve|correct)$|修复|修復|修正|直/u.test(word);
        if (
          TEST_WORDS.test(objectText) &&
          (!fixVerb ||
            /\b(?:wrong|incorrect|outdated|obsolete|flaky|broken)\s+(?:test|assertion|expectation)|(?:test|assertion|expectation)\s+(?:is|are)\s+(?:wrong|incorrect|outdated)/i.test(
              text,
            ))
        )
          testsAreTarget = true;
        break;
      }
      case 'delete': {
        // Code named in backticks ("all `console.log` calls", "every use of the `oldApi`
        // helper") is taken out of files: a change, not a file to delete.
        const raw = japanese ? text.slice(Math.max(0, hit.index - 80), hit.index) : segment;
        let codeRemoval = false;
        const where = japanese
          ? raw
          : raw.replace(/`([^`\n]+)`/g, (quoted, _inner: string, offset: number) => {
              if (
                !CODE_NOUN_AFTER.test(raw.slice(offset + quoted.length)) &&
                !CODE_NOUN_BEFORE.test(raw.slice(0, offset))
              )
                return quoted;
              codeRemoval = true;
              return ' '.repeat(quoted.length);
            });
        const removedBefore = remove.length;
        for (const found of findPaths(where)) {
          // "Remove `x` from src/a.js": the file is where the removal happens, not what goes.
          if (
            !japanese &&
            /\b(?:from|in|inside|within|of)\s+(?:the\s+)?(?:file\s+)?[`'"]?$/i.test(
              where.slice(0, found.index),
            ) &&
            /\S/.test(
              where
                .slice(0, found.index)
                .replace(/\b(?:from|in|inside|within|of)\s+(?:the\s+)?(?:file\s+)?[`'"]?$/i, ''),
            )
          ) {
            outcomes.add('write');
            change.push(found.file);
          } else remove.push(found.file);
        }
        // Folders named with a trailing slash ("Delete build/", "remove the dist/ folder"), not
        // where code is taken from ("… calls from src/").
        for (const folder of where.matchAll(/(?<![\w./-])((?:[\w@.-]+\/)+)(?=[\s,.;:)`'"」]|$)/g)) {
          const before = where.slice(0, folder.index ?? 0);
          const place = /\b(?:from|in|inside|within|under|across|throughout)\s+(?:the\s+)?$/i;
          if (codeRemoval && place.test(before)) continue;
          // "Remove every console.log call from the files in src/": src/ is where the removal
          // happens; "Delete the files in build/" still deletes (only files are named before it).
          if (place.test(before) && REMOVED_FROM.test(before.replace(place, ''))) {
            codeRemoval = true;
            continue;
          }
          const dir = (folder[1] ?? '').replace(/\/+$/, '');
          if (dir !== '' && !remove.some((file) => file === dir || file.startsWith(`${dir}/`)))
            remove.push(dir);
        }
        if (codeRemoval) outcomes.add('write');
        if (!codeRemoval || remove.length > removedBefore) outcomes.add('delete');
        if (TEST_WORDS.test(segment)) testsAreTarget = true;
        break;
      }
      case 'test':
        if (
          word === 'test' ||
          TEST_PASS_PHRASE.test(`${hit.word}${segment}`) ||
          /テスト|测试|測試/u.test(word)
        ) {
          outcomes.add('test');
          runTests = true;
        } else if (
          /^(?:verify|validate|ensure|make\s+sure|confirm)$|验证|驗證|确保|確保|検証|確かめ/iu.test(word)
        )
          outcomes.add('read');
        break;
      case 'run':
        if (
          /\btests?\b|测试|測試|テスト/iu.test(segment.slice(0, 40)) ||
          TEST_PASS_PHRASE.test(`${hit.word}${segment}`)
        ) {
          outcomes.add('test');
          runTests = true;
        } else outcomes.add('run');
        break;
      case 'tag':
      case 'untag': {
        outcomes.add('tag');
        const where = japanese ? text.slice(Math.max(0, hit.index - 40), hit.end) : `${hit.word}${segment}`;
        const name = tagNameIn(where, {
          loose: /\p{Script=Han}|\p{Script=Hiragana}|\p{Script=Katakana}/u.test(hit.word),
        });
        const target = category === 'tag' ? tagTargetIn(where) : undefined;
        tags.push({
          action: category === 'tag' ? 'create' : 'delete',
          ...(name !== undefined ? { name } : {}),
          ...(target !== undefined ? { target } : {}),
          ...(category === 'tag' &&
          asksAnnotatedTag(`${text.slice(Math.max(0, hit.index - 24), hit.index)}${where}`)
            ? { annotated: true as const }
            : {}),
        });
        break;
      }
      default:
        outcomes.add(category);
    }
  });
  if (
    TEST_PASS_PHRASE.test(text) &&
    !/\b(?:do\s+not|don't|no\s+need\s+to|without)\s+(?:run(?:ning)?\s+)?(?:the\s+)?tests?\b/i.test(text)
  )
    outcomes.add('test');
  // "Write the tests" asks for test files, not for passing tests.
  if (
    outcomes.has('test') &&
    outcomes.has('write') &&
    !TEST_PASS_PHRASE.test(text) &&
    /\b(?:write|add|create)\s+(?:the\s+|some\s+|new\s+|unit\s+)*tests?\b|(?:编写|添加|新增)\s*(?:单元)?测试|テストを(?:作成|追加|書)/iu.test(
      text,
    )
  )
    outcomes.delete('test');
  // Reading verbs only decide when nothing else was asked ("Read a.ts and fix the bug" is a fix).
  if (outcomes.size > 1) outcomes.delete('read');
  const commands: string[][] = [];
  for (const match of text.matchAll(/`([^`\n]+)`/g)) {
    const argv = splitCommandLine(match[1] ?? '');
    if (
      argv.length > 0 &&
      /^(?:npm|npx|pnpm|yarn|bun|node|deno|python3?|pytest|go|cargo|make|tsc|vitest|jest|git|pip3?)$/.test(
        argv[0] ?? '',
      )
    )
      commands.push(argv);
  }
  const packages: string[] = [];
  if (outcomes.has('install')) {
    const named =
      /\binstall\s+(?:the\s+)?[`'"]?(@?[\w.-]+(?:\/[\w.-]+)?)[`'"]?|\badd\s+[`'"]?(@?[\w./-]+)[`'"]?\s+(?:as\s+a\s+)?(?:dev\s*)?dependenc/i.exec(
        text,
      );
    const name = named?.[1] ?? named?.[2];
    if (name && !/^(?:the|a|an|all|dependencies|deps|packages|it|them|requirements)$/i.test(name))
      packages.push(name);
  }
  return {
    outcomes,
    create: [...new Set(create)],
    change: [...new Set(change.filter((file) => !create.includes(file)))],
    changeEach: [...new Set(changeEach.filter((file) => !create.includes(file)))],
    remove: [...new Set(remove)],
    move,
    commands,
    packages,
    tags,
    fix,
    testsAreTarget,
    verbs,
    runTests,
    symbols,
  };
}
