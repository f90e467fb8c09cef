import { describe, expect, it } from 'vitest';
import {
  type Claim,
  claimsFromStepClaims,
  extractClaims,
  findPaths,
  splitCommandLine,
} from './extract-claims';

function simple(text: string) {
  return extractClaims(text).map((claim) => {
    const { text: _text, source, ...rest } = claim as Claim & { text: string };
    expect(source).toBe('notes');
    return rest;
  });
}

describe('extractClaims', () => {
  it.each([
    ['created src/a.ts', [{ kind: 'file-written', file: 'src/a.ts', action: 'created' }]],
    ['wrote `src/a.ts`', [{ kind: 'file-written', file: 'src/a.ts', action: 'created' }]],
    ['modified auth.ts', [{ kind: 'file-written', file: 'auth.ts', action: 'modified' }]],
    ['Updated README.md with usage.', [{ kind: 'file-written', file: 'README.md', action: 'modified' }]],
    ['added validation to src/a.ts', [{ kind: 'file-written', file: 'src/a.ts', action: 'modified' }]],
    // "type hints" and "type annotations" are no type named hints.
    ['added type hints to app/calc.py', [{ kind: 'file-written', file: 'app/calc.py', action: 'modified' }]],
    ['已修改 auth.ts', [{ kind: 'file-written', file: 'auth.ts', action: 'modified' }]],
    ['新增了 src/a.ts', [{ kind: 'file-written', file: 'src/a.ts', action: 'created' }]],
    ['删除了 x.ts', [{ kind: 'file-deleted', file: 'x.ts' }]],
    ['刪除了 x.ts', [{ kind: 'file-deleted', file: 'x.ts' }]],
    [
      'deleted src/old.js and added src/new.js',
      [
        { kind: 'file-deleted', file: 'src/old.js' },
        { kind: 'file-written', file: 'src/new.js', action: 'created' },
      ],
    ],
    [
      '已删除 tmp.txt，并新增了 src/b.ts',
      [
        { kind: 'file-deleted', file: 'tmp.txt' },
        { kind: 'file-written', file: 'src/b.ts', action: 'created' },
      ],
    ],
    [
      'added function validateToken in auth.ts',
      [{ kind: 'symbol-added', name: 'validateToken', file: 'auth.ts', symbolKind: 'function' }],
    ],
    [
      '在 auth.ts 中加入了 validateToken 函數',
      [{ kind: 'symbol-added', name: 'validateToken', file: 'auth.ts', symbolKind: 'function' }],
    ],
    [
      '我已在 auth.ts 第 42 行加入了 validateToken 函数',
      [{ kind: 'symbol-added', name: 'validateToken', file: 'auth.ts', symbolKind: 'function' }],
    ],
    [
      'created the class `AuthService` in src/auth.ts',
      [{ kind: 'symbol-added', name: 'AuthService', file: 'src/auth.ts', symbolKind: 'class' }],
    ],
    [
      'added an interface User to src/types.ts',
      [{ kind: 'symbol-added', name: 'User', file: 'src/types.ts', symbolKind: 'interface' }],
    ],
    [
      'Added `validateToken()` to `src/auth.ts`',
      [{ kind: 'symbol-added', name: 'validateToken', file: 'src/auth.ts', symbolKind: 'any' }],
    ],
    [
      'Implemented isPrime in math.js',
      [{ kind: 'symbol-added', name: 'isPrime', file: 'math.js', symbolKind: 'any' }],
    ],
    ['tests pass', [{ kind: 'check-passed', check: 'test' }]],
    ['All tests passed.', [{ kind: 'check-passed', check: 'test', tests: { all: true } }]],
    [
      'all 12 unit tests are passing',
      [{ kind: 'check-passed', check: 'test', tests: { count: 12, all: true } }],
    ],
    ['all 8 tests pass', [{ kind: 'check-passed', check: 'test', tests: { count: 8, all: true } }]],
    ['Tests: 4 passed', [{ kind: 'check-passed', check: 'test', tests: { count: 4, all: false } }]],
    ['8/8 tests passing', [{ kind: 'check-passed', check: 'test', tests: { count: 8, all: true } }]],
    ['测试通过', [{ kind: 'check-passed', check: 'test' }]],
    ['測試通過', [{ kind: 'check-passed', check: 'test' }]],
    ['所有测试都通过了', [{ kind: 'check-passed', check: 'test', tests: { all: true } }]],
    ['8 个测试全部通过', [{ kind: 'check-passed', check: 'test', tests: { count: 8, all: false } }]],
    ['テストがすべてパスしました', [{ kind: 'check-passed', check: 'test', tests: { all: true } }]],
    ['no type errors', [{ kind: 'check-passed', check: 'typecheck' }]],
    ['類型檢查通過', [{ kind: 'check-passed', check: 'typecheck' }]],
    ['the build succeeds', [{ kind: 'check-passed', check: 'build' }]],
    ['编译通过', [{ kind: 'check-passed', check: 'build' }]],
    ['lint passes', [{ kind: 'check-passed', check: 'lint' }]],
    ['Ran `npm test` successfully', [{ kind: 'command-passed', argv: ['npm', 'test'] }]],
    ['`node --test` passes', [{ kind: 'command-passed', argv: ['node', '--test'] }]],
    ['执行 `pytest -q` 成功', [{ kind: 'command-passed', argv: ['pytest', '-q'] }]],
    ['`npm test` を実行し、すべて成功しました', [{ kind: 'command-passed', argv: ['npm', 'test'] }]],
    [
      'Ran `npm test`: 8 tests passed',
      [{ kind: 'command-passed', argv: ['npm', 'test'], tests: { count: 8, all: false } }],
    ],
    ['removed the unused import from a.ts', [{ kind: 'file-written', file: 'a.ts', action: 'modified' }]],
    // Japanese, 「」 quotes, renames and moves, layouts.
    ['src/a.ts を作成しました', [{ kind: 'file-written', file: 'src/a.ts', action: 'created' }]],
    ['「src/a.ts」を更新しました', [{ kind: 'file-written', file: 'src/a.ts', action: 'modified' }]],
    ['src/old.ts を削除しました。', [{ kind: 'file-deleted', file: 'src/old.ts' }]],
    [
      'src/math.js に isPrime 関数を追加しました',
      [{ kind: 'symbol-added', name: 'isPrime', file: 'src/math.js', symbolKind: 'function' }],
    ],
    ['已将「src/a.ts」更新', [{ kind: 'file-written', file: 'src/a.ts', action: 'modified' }]],
    ['Renamed src/old.ts to src/new.ts.', [{ kind: 'file-moved', from: 'src/old.ts', to: 'src/new.ts' }]],
    ['Moved `lib/a.js` into `src/lib/a.js`', [{ kind: 'file-moved', from: 'lib/a.js', to: 'src/lib/a.js' }]],
    ['将 src/a.ts 重命名为 src/b.ts', [{ kind: 'file-moved', from: 'src/a.ts', to: 'src/b.ts' }]],
    ['src/a.ts を src/b.ts にリネームしました', [{ kind: 'file-moved', from: 'src/a.ts', to: 'src/b.ts' }]],
    [
      '`src/a.ts`: replaced the loop with reduce',
      [{ kind: 'file-written', file: 'src/a.ts', action: 'modified' }],
    ],
    [
      '| File | Change |\n|---|---|\n| `src/a.ts` | created |\n| src/b.ts | updated the parser |',
      [
        { kind: 'file-written', file: 'src/a.ts', action: 'created' },
        { kind: 'file-written', file: 'src/b.ts', action: 'modified' },
      ],
    ],
    [
      'Created these files:\n```\nsrc/a.ts\nsrc/b.ts\n```',
      [
        { kind: 'file-written', file: 'src/a.ts', action: 'created' },
        { kind: 'file-written', file: 'src/b.ts', action: 'created' },
      ],
    ],
    [
      '```\nA  src/a.ts\nD  src/old.ts\n```',
      [
        { kind: 'file-written', file: 'src/a.ts', action: 'created' },
        { kind: 'file-deleted', file: 'src/old.ts' },
      ],
    ],
    // Git and dependencies.
    ['Committed the change as 1a2b3c4.', [{ kind: 'git-commit', hash: '1a2b3c4' }]],
    ['Pushed the branch to origin.', [{ kind: 'git-push', remote: 'origin' }]],
    ['Created a new branch feature/login', [{ kind: 'git-branch', name: 'feature/login' }]],
    ['Installed lodash', [{ kind: 'dependency-installed', name: 'lodash' }]],
    ['`npm install dayjs` succeeded', [{ kind: 'dependency-installed', name: 'dayjs' }]],
    ['Added vitest as a dev dependency', [{ kind: 'dependency-installed', name: 'vitest' }]],
    // A manifest's entry reported: the manifest changed, nothing claimed installed.
    [
      'Added vitest as a dev dependency in package.json',
      [{ kind: 'file-written', file: 'package.json', action: 'modified' }],
    ],
    [
      'added requests as a dependency to pyproject.toml',
      [{ kind: 'file-written', file: 'pyproject.toml', action: 'modified' }],
    ],
    ['已提交 1a2b3c4', [{ kind: 'git-commit', hash: '1a2b3c4' }]],
  ])('%s', (text, expected) => {
    expect(simple(text)).toEqual(expected);
  });

  it.each([
    'could not create src/a.ts',
    'I tried to update auth.ts but tests do not pass',
    'will add function validateToken in auth.ts',
    'Added TypeScript support',
    // Mentions are not claims.
    'Based on the Id type in src/types.ts.',
    'The function is defined in src/a.ts',
    'I read src/config.ts and confirmed nothing needed to change.',
    'src/config.ts: no change needed',
    'src/types.ts の Id 型に基づいています',
    '根据 src/types.ts 中定义的类型',
    // Negated, failed or intended actions are not claims.
    'src/a.ts を作成できませんでした',
    'I will create src/b.ts next',
    'I need to make the tests pass',
    'Used Node.js to do it',
    '测试未通过',
    '测试没有通过',
    '未能修改 auth.ts',
    '无法删除 x.ts',
    'not all tests pass',
    'See https://example.com/docs/index.html',
    'version 1.2.3 released',
    'the file src/a.ts was not created',
  ])('extracts nothing from %j', (text) => {
    expect(extractClaims(text)).toEqual([]);
  });

  it('combines claims across sentences, drops the status tag and duplicates', () => {
    const claims = extractClaims(
      '[SUCCESS]: Created src/a.ts, src/b.ts and modified src/c.ts. All 3 tests pass. Created src/a.ts again.',
    );
    expect(claims.map((claim) => claim.kind)).toEqual([
      'file-written',
      'file-written',
      'file-written',
      'check-passed',
    ]);
    expect(claims[0]).toMatchObject({
      source: 'notes',
      text: 'Created src/a.ts, src/b.ts and modified src/c.ts.',
    });
  });
});

describe('mentions are not claims', () => {
  it('claims the action, not the file it was based on', () => {
    for (const text of [
      'Added makeId to src/id.ts, based on the Id type in src/types.ts',
      'Based on the Id type in src/types.ts, added makeId to src/id.ts.',
      'src/types.ts の Id 型に基づいて src/id.ts に makeId 関数を追加しました',
      '根据 src/types.ts 中的 Id 类型，在 src/id.ts 中新增了 makeId 函数',
    ]) {
      const files = extractClaims(text).map((claim) => ('file' in claim ? claim.file : undefined));
      expect(files, text).toContain('src/id.ts');
      expect(files, text).not.toContain('src/types.ts');
    }
  });

  it('a data file "with" a key and value holds no declaration', () => {
    for (const text of [
      'Created package.json with "type": "module" and a node --test script.',
      'Wrote config.yaml with `port` set to 8080',
    ]) {
      expect(
        extractClaims(text).map((claim) => claim.kind),
        text,
      ).toEqual(['file-written']);
    }
    expect(extractClaims('Created src/a.js with the helper `double`').map((claim) => claim.kind)).toContain(
      'symbol-added',
    );
  });

  it('reads the final text the same way (source output)', () => {
    expect(
      extractClaims('I created src/is-prime.js and all 4 tests pass', 'output').map((claim) => claim.source),
    ).toEqual(['output', 'output']);
  });
});

describe('claimsFromStepClaims', () => {
  it('maps structured claims', () => {
    expect(
      claimsFromStepClaims({
        filesWritten: ['a.ts'],
        filesDeleted: ['b.ts'],
        symbolsAdded: [{ file: 'a.ts', name: 'f', kind: 'function' }],
        commandsPassed: [{ argv: ['npm', 'test'] }],
        tags: [
          { name: 'v1.2.0', action: 'create', target: 'main' },
          { name: 'v0.9', action: 'delete' },
        ],
      }).map(({ text, ...claim }) => claim),
    ).toEqual([
      { kind: 'file-written', file: 'a.ts', action: 'written', source: 'claims' },
      { kind: 'file-deleted', file: 'b.ts', source: 'claims' },
      { kind: 'symbol-added', name: 'f', file: 'a.ts', symbolKind: 'function', source: 'claims' },
      { kind: 'command-passed', argv: ['npm', 'test'], source: 'claims' },
      { kind: 'git-tag', name: 'v1.2.0', action: 'create', target: 'main', source: 'claims' },
      { kind: 'git-tag', name: 'v0.9', action: 'delete', source: 'claims' },
    ]);
    expect(claimsFromStepClaims(undefined)).toEqual([]);
  });
});

describe('helpers', () => {
  it('finds paths and rejects non-files', () => {
    expect(
      findPaths('see `src/a.ts`, ./b.json, Dockerfile and .gitignore; not Node.js or 1.2.3').map(
        (p) => p.file,
      ),
    ).toEqual(['src/a.ts', 'b.json', 'Dockerfile', '.gitignore']);
  });

  it('splits command lines with quotes, without expansion', () => {
    expect(splitCommandLine(`node -e "console.log('a b')" '$HOME'`)).toEqual([
      'node',
      '-e',
      "console.log('a b')",
      '$HOME',
    ]);
  });
});

describe('extractClaims on a repeated text', () => {
  it('answers the same claims as fresh copies that callers may change', () => {
    const text = '[SUCCESS]: created `src/a.ts`; ran `npm test` and all 4 tests passed';
    const first = extractClaims(text);
    expect(first.length).toBeGreaterThan(1);
    const snapshot = structuredClone(first);
    const command = first.find((claim) => claim.kind === 'command-passed');
    expect(command).toBeDefined();
    if (command?.kind === 'command-passed') command.argv.push('--changed');
    first.length = 0;
    const second = extractClaims(text);
    expect(second).toEqual(snapshot);
    expect(extractClaims(text, 'output')).toEqual(snapshot.map((claim) => ({ ...claim, source: 'output' })));
  });
});
