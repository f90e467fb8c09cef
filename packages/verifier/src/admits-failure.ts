/**
 * Phrases with which a step admits it did not do (all of) its work, in English, Chinese and
 * Japanese. Matched only where they speak about the step itself, never inside a description of
 * a bug it fixed ("fixed the crash when the file could not be read").
 */
const EN_ADMISSION =
  /\b(?:(?:i|we)\s+)?(?:could\s*n[o']t|couldn't|can\s*n[o']t|cannot|was\s+(?:not\s+|un)able\s+to|were\s+(?:not\s+|un)able\s+to|wasn't\s+able\s+to|weren't\s+able\s+to|unable\s+to|not\s+able\s+to|failed\s+to|fail\s+to|did\s*n[o']t\s+(?:manage|get\s+to|finish|complete|succeed|have\s+(?:time|access)|run|work|pass)|didn't\s+(?:manage|get\s+to|finish|complete|succeed|run|work|pass)|have\s*n[o']t\s+(?:been\s+able|run|tested|implemented|finished|verified)|has\s*n[o']t\s+been\s+(?:run|tested|implemented|verified)|gave\s+up|ran\s+out\s+of|no\s+(?:time|access|permission)\s+to|(?:is|are)\s+(?:still\s+)?(?:failing|broken|not\s+(?:implemented|working|done|finished|complete))|(?:tests?|build|suite|lint|typecheck)\s+(?:still\s+)?(?:fails?|failing|failed|errors?|errored|broke|breaks|is\s+red)|not\s+(?:yet\s+)?(?:implemented|finished|completed|done)|left\s+(?:as\s+)?(?:a\s+|the\s+)?(?:todo|stub|placeholder)|(?:only\s+)?partially\s+(?:done|implemented|completed|working)|skipped\s+(?:the\s+)?(?:tests?|step|verification|implementation)|timed\s+out|without\s+(?:running|testing|verifying)|blocked\s+by)\b/i;

/** Words that make the surrounding clause a description of a bug or behaviour, not an admission. */
const EN_DESCRIPTIVE =
  /\b(?:where|when|whenever|that|which|if|in\s+case|so\s+that|instead\s+of|rather\s+than|unless|who|whose|bug|issue|error\s+(?:when|where)|problem|case|cases|previously|used\s+to|would|regression|fixe?[sd]?|fixing|resolv(?:e|es|ed|ing)|address(?:es|ed)?|clear(?:s|ed)?|silenc(?:e|es|ed)|suppress(?:es|ed)?|eliminat(?:e|es|ed)|remov(?:e|es|ed)|handle[sd]?|handling|prevent(?:s|ed)?|avoid(?:s|ed)?|no\s+longer|now\s+(?:works|returns|handles)|instead|crash(?:ed|es)?\s+(?:when|if)|message|exception|throws?|reports?|returns?|shows?|displays?|logs?|warns?|caught|catch(?:es)?|retry|retries|fallback|gracefully|detects?|validates?)\b/i;

const ZH_ADMISSION =
  /无法|無法|未能|没能|沒能|没有完成|沒有完成|未完成|没有成功|沒有成功|未通过|未通過|没有通过|沒有通過|尚未|还没有|還沒有|还未|還未|失败了|失敗了|执行失败|執行失敗|测试失败|測試失敗|跳过了|跳過了|超时|超時|做不到|不能完成/u;
const ZH_DESCRIPTIVE =
  /修复|修復|修正|解决|解決|处理|處理|防止|避免|导致|導致|时的|時的|的问题|的問題|的错误|的錯誤|的情况|的情況|的\s*bug|的\s*Bug|报错信息|提示/u;

const JA_ADMISSION =
  /できませんでした|できなかった|できず|失敗しました|失敗した|失敗しています|未完了|完了していません|できていません|実行していません|確認していません|テストしていません|間に合いませんでした|スキップしました|タイムアウトしました|通りませんでした|パスしませんでした|まだ(?:実装|完了|対応)していません/u;
const JA_DESCRIPTIVE =
  /問題|不具合|バグ|エラーを修正|場合|ケース|時の|ときの|を修正しました|を解決しました|を防ぐ|を回避/u;

/** Splits text into sentences / clauses where an admission would stand. */
function clauses(text: string): string[] {
  return text
    .split(
      /(?<=[.!?。！？；;\n])\s*|,\s*(?:but|however|although|though)\b|\bbut\b|\bhowever\b|但是|但|不过|不過|ただし|しかし|が、/iu,
    )
    .map((part) => part.trim())
    .filter((part) => part !== '');
}

/**
 * Returns the part of a step's text that admits failure ("could not write the file", "failed
 * to run the tests", "unable to …", "did not get to …", "无法…", "テストを実行できませんでした"),
 * or `undefined`. A phrase inside a description of a fixed bug ("fixed the crash when the config
 * could not be read") is not an admission.
 *
 * @example
 * admitsFailure('[SUCCESS]: wrote src/a.ts but could not run the tests'); // 'could not run the tests'
 * admitsFailure('[SUCCESS]: fixed the bug where parse failed to handle empty input'); // undefined
 */
export function admitsFailure(text: string): string | undefined {
  const body = text.replace(/^\s*\[(?:SUCCESS|FAIL)\]\s*:?\s*/i, '');
  for (const clause of clauses(body)) {
    const en = EN_ADMISSION.exec(clause);
    if (en) {
      const before = clause.slice(0, en.index);
      if (!EN_DESCRIPTIVE.test(before)) return clause.slice(en.index, en.index + 160).trim();
    }
    const zh = ZH_ADMISSION.exec(clause);
    if (zh) {
      const before = clause.slice(0, zh.index);
      const after = clause.slice(zh.index, zh.index + 24);
      if (!ZH_DESCRIPTIVE.test(before) && !ZH_DESCRIPTIVE.test(after))
        return clause.slice(zh.index, zh.index + 80).trim();
    }
    const ja = JA_ADMISSION.exec(clause);
    if (ja) {
      const near = clause.slice(Math.max(0, ja.index - 40), ja.index + ja[0].length + 8);
      if (!JA_DESCRIPTIVE.test(near.replace(ja[0], '')))
        return clause.slice(Math.max(0, ja.index - 40), ja.index + ja[0].length).trim();
    }
  }
  return undefined;
}
