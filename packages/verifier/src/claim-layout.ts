import { findPaths } from './find-paths';

/**
 * Status words a list item, table cell or git status line can give a file, in English, Chinese
 * and Japanese, mapped to the verb the prose extractor understands.
 */
const STATUS_WORDS: readonly { pattern: RegExp; verb: 'created' | 'modified' | 'deleted' | 'renamed' }[] = [
  {
    pattern:
      /^(?:\(?\s*)(?:new(?:\s+file)?|created|added|add|create|generated|written|wrote|新增|新建|创建|創建|添加|新規(?:作成)?|作成|追加|生成)(?![A-Za-z])/iu,
    verb: 'created',
  },
  {
    pattern: /^(?:\(?\s*)(?:deleted|removed|delete|remove|gone|删除|刪除|移除|削除)(?![A-Za-z])/iu,
    verb: 'deleted',
  },
  { pattern: /^(?:\(?\s*)(?:renamed|moved|重命名|移动|移動|リネーム)(?![A-Za-z])/iu, verb: 'renamed' },
  {
    pattern:
      /^(?:\(?\s*)(?:modified|updated|changed|edited|fixed|patched|refactored|rewritten|rewrote|replaced|adjusted|modify|update|change|edit|修改|更新|编辑|編輯|修复|修復|修正|调整|調整|重构|重構|変更|編集|改修)(?![A-Za-z])/iu,
    verb: 'modified',
  },
];

/** A verb word anywhere in a text (for table cells and list remainders that describe a change). */
const CHANGE_VERB =
  /\b(?:created|added|wrote|written|generated|implemented|defined|introduced|modified|updated|changed|edited|fixed|patched|refactored|rewrote|replaced|adjusted|extended|renamed|moved|deleted|removed|converted|simplified|documented|inserted|appended)\b|新增|新建|创建|添加|实现|修改|更新|修复|修正|重构|替换|删除|移除|作成|追加|実装|修正|更新|変更|削除|置換/iu;

const GIT_STATUS_LINE =
  /^\s*(?:(?<code>[AMDRCU?]{1,2})\s+|(?<label>new file|modified|deleted|renamed|create mode \d+|delete mode \d+)\s*:?\s*)(?<rest>\S.*)$/;

function statusVerb(text: string): 'created' | 'modified' | 'deleted' | 'renamed' | undefined {
  const cleaned = text
    .trim()
    .replace(/^[*_`~]+|[*_`~]+$/g, '')
    .trim();
  for (const { pattern, verb } of STATUS_WORDS) if (pattern.test(cleaned)) return verb;
  return undefined;
}

function gitStatusVerb(code: string | undefined, label: string | undefined) {
  if (label !== undefined) {
    if (/^(?:new file|create mode)/.test(label)) return 'created';
    if (/^(?:deleted|delete mode)/.test(label)) return 'deleted';
    if (/^renamed/.test(label)) return 'renamed';
    return 'modified';
  }
  if (code === undefined) return undefined;
  if (code.includes('?') || code.includes('A')) return 'created';
  if (code.includes('D')) return 'deleted';
  if (code.includes('R')) return 'renamed';
  return 'modified';
}

/** A sentence the prose extractor will read: `created \`src/a.ts\`.` */
function sentence(verb: string, paths: readonly string[]): string {
  return `${verb} ${paths.map((file) => `\`${file}\``).join(', ')}.`;
}

/** True when every non-empty line of a fenced block is a file path (possibly git status style). */
function pathListLines(lines: readonly string[]): string[] | undefined {
  const out: string[] = [];
  for (const raw of lines) {
    const line = raw.trim();
    if (line === '') continue;
    const git = GIT_STATUS_LINE.exec(line);
    if (git?.groups) {
      const verb = gitStatusVerb(git.groups.code, git.groups.label);
      const paths = findPaths(git.groups.rest ?? '');
      if (verb !== undefined && paths.length > 0 && verb === 'renamed' && paths.length >= 2) {
        out.push(`renamed \`${paths[0]?.file}\` to \`${paths[1]?.file}\`.`);
        continue;
      }
      if (verb !== undefined && paths.length > 0) {
        out.push(
          sentence(
            verb,
            paths.map((found) => found.file),
          ),
        );
        continue;
      }
    }
    const item = line.replace(/^(?:[-*+•]\s+|\d+[.)]\s+)/, '');
    const paths = findPaths(item);
    if (paths.length !== 1 || item.replace(/[`'"*]/g, '').trim() !== paths[0]?.file) return undefined;
    out.push(`\u0000${paths[0].file}`);
  }
  return out.length > 0 ? out : undefined;
}

function splitRow(line: string): string[] {
  return line
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split('|')
    .map((cell) => cell.trim());
}

const HEADER_ACTION =
  /^(?:action|change|changes|status|what|operation|type|kind|操作|变更|變更|变化|状态|狀態|変更|内容|種別)$/iu;

/** Turns a markdown table into sentences: each row with a path and a change word becomes a claim. */
function tableSentences(rows: readonly string[], lead: string | undefined): string[] {
  const parsed = rows.map(splitRow).filter((cells) => !cells.every((cell) => /^:?-{2,}:?$/.test(cell)));
  if (parsed.length === 0) return [];
  const header = parsed[0] ?? [];
  const headerHasPath = header.some((cell) => findPaths(cell).length > 0);
  const body = headerHasPath ? parsed : parsed.slice(1);
  const actionColumn = headerHasPath
    ? -1
    : header.findIndex((cell) => HEADER_ACTION.test(cell.replace(/[*_`]/g, '')));
  const leadVerb =
    lead !== undefined
      ? statusVerb(lead.replace(/^.*?\b(created|added|modified|updated|changed|deleted|removed)\b.*$/i, '$1'))
      : undefined;
  const out: string[] = [];
  for (const cells of body) {
    const pathCell = cells.findIndex((cell) => findPaths(cell).length > 0);
    if (pathCell === -1) continue;
    const paths = findPaths(cells[pathCell] ?? '').map((found) => found.file);
    const others = cells.filter((_, index) => index !== pathCell);
    let verb: string | undefined;
    if (actionColumn !== -1 && actionColumn !== pathCell) verb = statusVerb(cells[actionColumn] ?? '');
    if (verb === undefined) {
      for (const cell of others) {
        verb = statusVerb(cell);
        if (verb !== undefined) break;
      }
    }
    if (verb === undefined && others.some((cell) => CHANGE_VERB.test(cell))) verb = 'modified';
    verb ??= leadVerb;
    if (verb === undefined) continue;
    if (verb === 'renamed' && paths.length >= 2) out.push(`renamed \`${paths[0]}\` to \`${paths[1]}\`.`);
    else out.push(sentence(verb, paths));
  }
  return out;
}

/**
 * A list item or line that starts with a path and then says what happened to it:
 * "`src/a.ts`: replaced the loop", "src/b.ts — new", "**src/c.ts** (deleted)".
 */
function pathFirstItem(line: string): string | undefined {
  const item = line.replace(/^\s*(?:[-*+•]\s+|\d+[.)]\s+)?/, '');
  const match =
    /^(?:\*\*|__)?[`'"「]?([^\s`'"」*]+)[`'"」]?(?:\*\*|__)?\s*(?::|：|—|–|-{1,2}>?|→|=>|\()\s*(.+)$/u.exec(
      item,
    );
  if (!match) return undefined;
  const paths = findPaths(match[1] ?? '');
  if (paths.length !== 1 || paths[0]?.file !== (match[1] ?? '').replace(/^\.\//, '')) return undefined;
  const file = paths[0].file;
  const rest = (match[2] ?? '').replace(/\)\s*$/, '').trim();
  if (/\b(?:not|no|never|unchanged|untouched|read|reviewed)\b|未|没有|沒有|無|ない|ません/iu.test(rest))
    return undefined;
  const status = statusVerb(rest);
  if (status === 'renamed') {
    const target = findPaths(rest)[0]?.file;
    return target !== undefined ? `renamed \`${file}\` to \`${target}\`.` : sentence('modified', [file]);
  }
  if (status === 'deleted') {
    // "`a.ts`: removed the unused import" is a change of a.ts, "`a.ts`: deleted" removes it.
    const words = rest
      .replace(/[.。!]+$/, '')
      .trim()
      .split(/\s+/);
    return words.length <= 2 ||
      /^(?:\(?\s*)(?:deleted|removed)\s*(?:file|entirely|completely)?\)?$/i.test(rest)
      ? sentence('deleted', [file])
      : sentence('modified', [file]);
  }
  if (status === 'created') {
    const words = rest
      .replace(/[.。!]+$/, '')
      .trim()
      .split(/\s+/);
    return words.length <= 3 || /^(?:new|created)\b/i.test(rest)
      ? sentence('created', [file])
      : sentence('modified', [file]);
  }
  if (status === 'modified' || CHANGE_VERB.test(rest)) return sentence('modified', [file]);
  return undefined;
}

/** A line that introduces a list: "Files created:", "## Changes", "新增文件：", "変更したファイル:". */
function leadVerbOf(line: string): string | undefined {
  const heading = /^#{1,6}\s+/.test(line);
  if (!/[:：]\s*$/.test(line) && !heading) return undefined;
  const text = line.replace(/^#{1,6}\s+/, '').replace(/[:：]\s*$/, '');
  if (/\b(?:created|new|added|wrote)\b|新增|新建|创建|作成|追加/i.test(text)) return 'created';
  if (/\b(?:deleted|removed)\b|删除|刪除|移除|削除/i.test(text)) return 'deleted';
  if (
    /\b(?:modified|updated|changed|edited|fixed|touched|changes)\b|修改|更新|变更|變更|変更|修正/i.test(text)
  )
    return 'modified';
  return undefined;
}

/**
 * Rewrites the layout of a step's text into plain sentences the prose extractor reads: markdown
 * tables (a row with a path and a change word), fenced blocks that list paths or git status
 * lines, path-first list items ("`src/a.ts`: replaced …"), and lists under a line like
 * "Files created:". Code in fenced blocks is dropped: code is never a claim.
 */
export function normalizeLayout(text: string): string {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const out: string[] = [];
  let lead: string | undefined;
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index] ?? '';
    const fence = /^\s*(```+|~~~+)(.*)$/.exec(line);
    if (fence) {
      const marker = fence[1] ?? '```';
      const body: string[] = [];
      let end = index + 1;
      while (end < lines.length && !(lines[end] ?? '').trim().startsWith(marker))
        body.push(lines[end++] ?? '');
      index = end;
      const listed = pathListLines(body);
      if (listed) {
        for (const item of listed) {
          if (item.startsWith('\u0000')) {
            if (lead !== undefined) out.push(sentence(lead, [item.slice(1)]));
          } else out.push(item);
        }
      } else {
        out.push(' ');
      }
      continue;
    }
    if (/^\s*\|.*\|\s*$/.test(line)) {
      const rows: string[] = [];
      let end = index;
      while (end < lines.length && /^\s*\|.*\|\s*$/.test(lines[end] ?? '')) rows.push(lines[end++] ?? '');
      index = end - 1;
      out.push(...tableSentences(rows, lead));
      continue;
    }
    const itemSentence = pathFirstItem(line);
    if (itemSentence !== undefined) {
      out.push(itemSentence);
      continue;
    }
    const bare = line.replace(/^\s*(?:[-*+•]\s+|\d+[.)]\s+)/, '').trim();
    const barePaths = findPaths(bare);
    if (
      lead !== undefined &&
      barePaths.length === 1 &&
      bare.replace(/[`'"*「」]/g, '').trim() === barePaths[0]?.file
    ) {
      out.push(sentence(lead, [barePaths[0].file]));
      continue;
    }
    const nextLead = leadVerbOf(line.trim());
    if (nextLead !== undefined) lead = nextLead;
    else if (bare !== '' && !/^\s*(?:[-*+•]|\d+[.)])\s/.test(line)) lead = undefined;
    out.push(line);
  }
  return out.join('\n');
}
