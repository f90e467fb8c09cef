import { type ArgvGrammar, denied, type OptionSpec, options } from './argv-grammar';
import { applyGrammar, type ProgramRule } from './program-rules';

/**
 * git's command line, deny by default: global options from a short list (no `-c`, `-C`,
 * `--git-dir`, `--work-tree`, `--exec-path`…), subcommands from an allowlist (no aliases,
 * `submodule foreach`, `filter-branch`, `difftool`, `bisect run`…), and per subcommand the options
 * it knows. git accepts any unique prefix of a long option (`--exe` is `--exec`) and `--no-`
 * negations: the policy accepts only options written in full, so an abbreviation never reaches
 * git. The runner adds `-c core.hooksPath=/dev/null -c core.fsmonitor=false` and friends to every
 * git command (see `gitHardening`).
 */

const runsProgram = 'it runs a program git is told about (hooks, pagers, helpers and external tools are off)';
const configures = 'it sets configuration, which can run programs (core.pager, core.sshCommand, aliases)';
const elsewhere = 'it points git at another folder: use the cwd argument instead';
const signs = 'signing runs the gpg program with the user’s keys';
const interactive = 'it needs an interactive terminal';
const submodules = 'submodules can run their own configuration and hooks';

/** Options every subcommand refuses, wherever they appear. */
const alwaysDenied: Record<string, OptionSpec> = {
  ...denied('exec upload-pack receive-pack', runsProgram),
  ...denied('ext-diff textconv', runsProgram, 'flag'),
  ...denied('config-env', configures),
  ...denied('template separate-git-dir', 'it plants hooks or moves the repository out of the workspace'),
  ...denied('git-dir work-tree', elsewhere),
  ...denied('gpg-sign', signs, 'optional'),
  ...denied('recurse-submodules', submodules, 'optional'),
  ...denied('open-files-in-pager', runsProgram, 'optional'),
  ...denied('no-index', 'it compares files outside the repository'),
};

const diffOptions = {
  ...options(
    'patch no-patch raw patch-with-raw patch-with-stat numstat shortstat summary name-only name-status full-index binary ' +
      'check no-renames find-copies-harder irreversible-delete text ignore-space-at-eol ignore-space-change ' +
      'ignore-all-space ignore-blank-lines ignore-cr-at-eol minimal patience histogram no-color no-ext-diff no-textconv ' +
      'exit-code quiet cached staged merge-base no-relative cumulative compact-summary no-prefix default-prefix ' +
      'function-context pickaxe-all pickaxe-regex ita-invisible-in-index ita-visible-in-index full-diff z',
  ),
  ...options(
    'stat? dirstat? color? color-words? word-diff? word-diff-regex= abbrev? src-prefix= dst-prefix= line-prefix= unified= ' +
      'inter-hunk-context= find-renames? find-copies? break-rewrites? diff-filter= diff-algorithm= anchored= submodule? ' +
      'ignore-submodules? ws-error-highlight= color-moved? color-moved-ws= stat-width= stat-name-width= stat-count= ' +
      'stat-graph-width= relative? output-indicator-new= output-indicator-old= output-indicator-context= ' +
      'ignore-matching-lines= rotate-to= skip-to=',
    'text',
  ),
  ...options('output= orderfile='),
};
const diffShort = {
  ...options('p u s a b w W R z D'),
  ...options('U? M? C? B? S= G= l= I=', 'text'),
  ...options('O='),
};

const logOptions = {
  ...diffOptions,
  ...options(
    'oneline graph no-decorate all abbrev-commit no-abbrev-commit relative-date reverse first-parent merges no-merges ' +
      'follow source all-match invert-grep regexp-ignore-case extended-regexp fixed-strings perl-regexp basic-regexp ' +
      'ancestry-path simplify-by-decoration topo-order date-order author-date-order cherry-pick left-right left-only ' +
      'right-only cherry-mark cherry boundary walk-reflogs no-notes parents children full-history dense sparse ' +
      'simplify-merges show-pulls mailmap use-mailmap no-mailmap log-size not do-walk count no-min-parents ' +
      'no-max-parents remerge-diff combined-all-paths no-diff-merges clear-decorations exclude-first-parent-only ' +
      'bisect show-signature no-walk? expand-tabs? no-expand-tabs cc dd show-linear-break? no-abbrev',
  ),
  ...options(
    'decorate? branches? tags? remotes? format= pretty? date= since= until= after= before= author= committer= grep= ' +
      'max-count= skip= max-parents= min-parents= notes? show-notes? encoding= exclude= glob= diff-merges= ' +
      'decorate-refs= decorate-refs-exclude= since-as-filter= ancestry-path?',
    'text',
  ),
};
const logShort = {
  ...diffShort,
  ...options('i E F P g m c t 0 1 2 3 4 5 6 7 8 9'),
  ...options('n= L=', 'text'),
};

function grammar(
  name: string,
  long: Record<string, OptionSpec>,
  short: Record<string, OptionSpec> = {},
): ArgvGrammar {
  return { name: `git ${name}`, long: { ...alwaysDenied, ...long }, short, negatable: true };
}

/**
 * `-s` / `--strategy`: git runs a strategy it does not know as the program `git-merge-<name>`,
 * found on `PATH` (a folder the agent writes may be there), so only git's own strategies pass.
 */
const builtinStrategies = ['ort', 'recursive', 'resolve', 'octopus', 'ours', 'subtree'];
const strategy: OptionSpec = {
  arity: 'value',
  kind: 'text',
  check: (value) =>
    builtinStrategies.includes(value)
      ? undefined
      : `${JSON.stringify(value)} is not one of git's own merge strategies (${builtinStrategies.join(', ')}); any other name runs the program git-merge-${value}`,
};

const pathspecFile = options('pathspec-from-file=');
const quietVerbose = options('quiet verbose progress');

const subcommands: Record<string, ArgvGrammar> = {
  status: grammar(
    'status',
    {
      ...options('short branch long verbose show-stash ahead-behind renames null z no-column'),
      ...options('porcelain? untracked-files? ignore-submodules? ignored? column? find-renames?', 'text'),
    },
    { ...options('s b v z'), ...options('u? M?', 'text') },
  ),
  diff: grammar('diff', diffOptions, diffShort),
  log: grammar('log', logOptions, logShort),
  show: grammar('show', logOptions, logShort),
  whatchanged: grammar('whatchanged', logOptions, logShort),
  'rev-list': grammar(
    'rev-list',
    { ...logOptions, ...options('objects objects-edge quiet header disk-usage? timestamp') },
    logShort,
  ),
  shortlog: grammar(
    'shortlog',
    { ...logOptions, ...options('summary numbered email committer'), ...options('group= width?', 'text') },
    { ...logShort, ...options('s e w?'), ...options('n c', 'text') },
  ),
  add: grammar(
    'add',
    {
      ...options(
        'verbose dry-run force all update intent-to-add refresh ignore-errors ignore-missing renormalize sparse ' +
          'ignore-removal pathspec-file-nul',
      ),
      ...options('chmod=', 'text'),
      ...pathspecFile,
      ...denied('interactive patch edit', interactive, 'flag'),
    },
    { ...options('v n f A u N'), ...denied('i p e', interactive, 'flag') },
  ),
  commit: grammar(
    'commit',
    {
      ...options(
        'all allow-empty allow-empty-message amend no-edit edit no-verify signoff quiet verbose dry-run short branch ' +
          'porcelain long null only include status reset-author pathspec-file-nul',
      ),
      ...options(
        'message= author= date= reuse-message= reedit-message= fixup= squash= cleanup= trailer= untracked-files?',
        'text',
      ),
      ...options('file= template='),
      ...pathspecFile,
      ...denied('interactive patch', interactive, 'flag'),
    },
    {
      ...options('a n s q v z o i e'),
      ...options('m= C= c= u?', 'text'),
      ...options('F= t='),
      ...denied('p', interactive, 'flag'),
      ...denied('S', signs, 'optional'),
    },
  ),
  rm: grammar(
    'rm',
    {
      ...options('cached force recursive dry-run quiet ignore-unmatch sparse pathspec-file-nul'),
      ...pathspecFile,
    },
    options('f r n q'),
  ),
  mv: grammar('mv', options('force dry-run verbose sparse'), options('f k n v')),
  restore: grammar(
    'restore',
    {
      ...options(
        'staged worktree ours theirs merge ignore-unmerged ignore-skip-worktree-bits overlay quiet progress pathspec-file-nul',
      ),
      ...options('source= conflict=', 'text'),
      ...pathspecFile,
      ...denied('patch', interactive, 'flag'),
    },
    { ...options('S W m q'), ...options('s=', 'text'), ...denied('p', interactive, 'flag') },
  ),
  checkout: grammar(
    'checkout',
    {
      ...options(
        'detach force merge ours theirs quiet progress ignore-other-worktrees overwrite-ignore guess overlay ' +
          'ignore-skip-worktree-bits pathspec-file-nul',
      ),
      ...options('orphan= conflict= track?', 'text'),
      ...pathspecFile,
      ...denied('patch', interactive, 'flag'),
    },
    { ...options('f m q l t'), ...options('b= B=', 'text'), ...denied('p', interactive, 'flag') },
  ),
  switch: grammar(
    'switch',
    {
      ...options('detach guess force discard-changes merge quiet progress ignore-other-worktrees'),
      ...options('create= force-create= orphan= conflict= track?', 'text'),
    },
    { ...options('d f m q t'), ...options('c= C=', 'text') },
  ),
  branch: grammar(
    'branch',
    {
      ...options(
        'list all remotes verbose delete force move copy show-current unset-upstream ignore-case quiet create-reflog ' +
          'omit-empty no-abbrev',
      ),
      ...options(
        'set-upstream-to= track? contains? no-contains? merged? no-merged? points-at= sort= format= column? color? abbrev?',
        'text',
      ),
      ...denied('edit-description', interactive, 'flag'),
    },
    { ...options('l a r v d D f m M c C i q t'), ...options('u=', 'text') },
  ),
  tag: grammar(
    'tag',
    {
      ...options('list annotate delete force verify ignore-case create-reflog omit-empty no-sign'),
      ...options(
        'message= contains? no-contains? merged? no-merged? points-at? sort= format= column? cleanup= color? n?',
        'text',
      ),
      ...options('file='),
      ...denied('sign', signs, 'flag'),
      ...denied('local-user', signs),
    },
    {
      ...options('l a d f v i'),
      ...options('m= n?', 'text'),
      ...options('F='),
      ...denied('s', signs, 'flag'),
      ...denied('u', signs),
    },
  ),
  reset: grammar(
    'reset',
    {
      ...options('soft mixed hard merge keep quiet no-refresh refresh pathspec-file-nul intent-to-add'),
      ...pathspecFile,
      ...denied('patch', interactive, 'flag'),
    },
    { ...options('q N'), ...denied('p', interactive, 'flag') },
  ),
  stash: grammar(
    'stash',
    {
      ...diffOptions,
      ...options('keep-index include-untracked all quiet staged index only-untracked pathspec-file-nul'),
      ...options('message=', 'text'),
      ...pathspecFile,
      ...denied('patch', interactive, 'flag'),
    },
    { ...diffShort, ...options('k u a q S'), ...options('m=', 'text'), ...denied('p', interactive, 'flag') },
  ),
  init: grammar(
    'init',
    { ...options('quiet bare'), ...options('initial-branch= shared? object-format= ref-format=', 'text') },
    { ...options('q'), ...options('b=', 'text') },
  ),
  clone: grammar(
    'clone',
    {
      ...options(
        'quiet verbose progress no-checkout bare mirror single-branch no-tags shallow-submodules dissociate local ' +
          'no-hardlinks shared also-filter-submodules sparse reject-shallow',
      ),
      ...options('origin= branch= depth= shallow-since= shallow-exclude= jobs= filter= revision=', 'text'),
      ...options('reference= reference-if-able='),
      ...denied('config', configures),
      ...denied('bundle-uri server-option', runsProgram),
    },
    {
      ...options('q v n l s'),
      ...options('o= b= j=', 'text'),
      ...denied('c', configures),
      ...denied('u', runsProgram),
    },
  ),
  fetch: grammar(
    'fetch',
    {
      ...options(
        'all append atomic unshallow update-shallow negotiate-only dry-run porcelain write-fetch-head force keep ' +
          'multiple auto-maintenance auto-gc write-commit-graph prefetch prune prune-tags refetch tags set-upstream ' +
          'update-head-ok show-forced-updates ipv4 ipv6 quiet verbose progress',
      ),
      ...options(
        'depth= deepen= shallow-since= shallow-exclude= negotiation-tip= refmap= jobs= filter=',
        'text',
      ),
      ...denied('server-option submodule-prefix', runsProgram),
    },
    {
      ...options('a f k p P n t q v 4 6'),
      ...options('j=', 'text'),
      ...denied('o', runsProgram),
      ...denied('u', 'on some subcommands -u names an upload-pack program; write --update-head-ok'),
    },
  ),
  pull: grammar(
    'pull',
    {
      ...options(
        'all append atomic unshallow update-shallow dry-run force keep prune tags no-rebase ff no-ff ff-only squash ' +
          'commit edit stat log signoff verify autostash allow-unrelated-histories ipv4 ipv6 update-head-ok',
      ),
      ...quietVerbose,
      ...options(
        'depth= deepen= shallow-since= shallow-exclude= rebase? strategy-option= cleanup= jobs=',
        'text',
      ),
      strategy,
      ...denied('server-option', runsProgram),
    },
    {
      ...options('a f k p q v n e 4 6'),
      ...options('r? X= j=', 'text'),
      s: strategy,
      ...denied('o', runsProgram),
      ...denied('u', 'on some subcommands -u names an upload-pack program; write --update-head-ok'),
      ...denied('S', signs, 'optional'),
    },
  ),
  push: grammar(
    'push',
    {
      ...options(
        'all branches mirror tags follow-tags atomic dry-run porcelain delete prune force force-if-includes ' +
          'set-upstream thin no-verify verify ipv4 ipv6',
      ),
      ...quietVerbose,
      ...options('force-with-lease? push-option= repo=', 'text'),
      ...denied('signed', signs, 'optional'),
    },
    { ...options('n d f u q v 4 6'), ...options('o=', 'text') },
  ),
  'ls-remote': grammar(
    'ls-remote',
    {
      ...options('heads tags branches refs quiet get-url symref exit-code'),
      ...options('sort=', 'text'),
      ...denied('server-option', runsProgram),
    },
    { ...options('h t b q'), ...denied('u', runsProgram), ...denied('o', runsProgram) },
  ),
  remote: grammar(
    'remote',
    { ...options('verbose tags no-tags push add delete all dry-run auto'), ...options('mirror?', 'text') },
    { ...options('v f n a d'), ...options('t= m=', 'text') },
  ),
  merge: grammar(
    'merge',
    {
      ...options(
        'no-commit commit edit no-edit ff no-ff ff-only squash stat log signoff rerere-autoupdate overwrite-ignore ' +
          'abort quit continue allow-unrelated-histories verify autostash no-verify-signatures quiet verbose progress',
      ),
      ...options('strategy-option= message= into-name= cleanup= log?', 'text'),
      strategy,
      ...options('file='),
      ...denied('verify-signatures', signs, 'flag'),
    },
    {
      ...options('e n q v'),
      ...options('X= m=', 'text'),
      s: strategy,
      ...options('F='),
      ...denied('S', signs, 'optional'),
    },
  ),
  rebase: grammar(
    'rebase',
    {
      ...options(
        'keep-base continue abort quit skip show-current-patch apply merge keep-empty reapply-cherry-picks ' +
          'allow-empty-message rerere-autoupdate quiet verbose stat no-verify verify force-rebase fork-point ' +
          'ignore-whitespace committer-date-is-author-date ignore-date reset-author-date signoff interactive update-refs ' +
          'autosquash autostash root reschedule-failed-exec no-rebase-merges',
      ),
      ...options('onto= empty= strategy-option= C= whitespace= rebase-merges?', 'text'),
      strategy,
      ...denied('edit-todo', interactive, 'flag'),
    },
    {
      ...options('m q v n f i'),
      ...options('X= C= r?', 'text'),
      s: strategy,
      ...denied('x', 'it runs a shell command after each commit'),
      ...denied('S', signs, 'optional'),
    },
  ),
  'cherry-pick': grammar(
    'cherry-pick',
    {
      ...options(
        'edit no-edit no-commit signoff rerere-autoupdate allow-empty allow-empty-message keep-redundant-commits ff ' +
          'continue skip quit abort',
      ),
      ...options('cleanup= mainline= strategy-option= empty=', 'text'),
      strategy,
    },
    { ...options('e x r n s'), ...options('m= X=', 'text'), ...denied('S', signs, 'optional') },
  ),
  revert: grammar(
    'revert',
    {
      ...options('edit no-edit no-commit signoff rerere-autoupdate continue skip quit abort reference'),
      ...options('cleanup= mainline= strategy-option=', 'text'),
      strategy,
    },
    { ...options('e n s'), ...options('m= X=', 'text'), ...denied('S', signs, 'optional') },
  ),
  'ls-files': grammar(
    'ls-files',
    {
      ...options(
        'cached deleted modified others ignored stage killed directory no-empty-directory unmerged resolve-undo ' +
          'exclude-standard error-unmatch full-name debug eol deduplicate sparse z',
      ),
      ...options('exclude= exclude-per-directory= with-tree= format= abbrev?', 'text'),
      ...options('exclude-from='),
    },
    { ...options('c d m o i s k u z t v f'), ...options('x=', 'text'), ...options('X=') },
  ),
  'rev-parse': grammar(
    'rev-parse',
    {
      ...options(
        'show-toplevel git-common-dir is-inside-work-tree is-inside-git-dir is-bare-repository verify quiet symbolic ' +
          'symbolic-full-name all show-prefix show-cdup absolute-git-dir is-shallow-repository local-env-vars sq ' +
          'sq-quote show-superproject-working-tree shared-index-path not revs-only no-revs flags no-flags ' +
          'show-ref-format end-of-options keep-dashdash stop-at-non-option stuck-long git-dir',
      ),
      ...options(
        'abbrev-ref? short? branches? tags? remotes? default= since= until= after= before= git-path= ' +
          'show-object-format? glob= exclude= disambiguate= path-format=',
        'text',
      ),
      ...options('resolve-git-dir= prefix='),
      // `--git-dir` here prints the path; it does not point git elsewhere.
      'git-dir': { arity: 'flag' },
    },
    options('q'),
  ),
  blame: grammar(
    'blame',
    {
      ...options(
        'first-parent porcelain line-porcelain incremental progress color-lines color-by-age minimal score-debug ' +
          'show-name show-number show-email root show-stats',
      ),
      ...options('reverse= encoding= date= M? C? ignore-rev= abbrev? since=', 'text'),
      ...options('contents= ignore-revs-file='),
    },
    { ...options('l t p h c f n s e w b'), ...options('L= M? C?', 'text'), ...options('S=') },
  ),
  grep: grammar(
    'grep',
    {
      ...options(
        'cached untracked no-exclude-standard exclude-standard text no-textconv ignore-case recursive no-recursive ' +
          'word-regexp invert-match full-name extended-regexp basic-regexp perl-regexp fixed-strings line-number column ' +
          'files-with-matches name-only files-without-match null only-matching count no-color break heading ' +
          'show-function function-context and or not all-match quiet',
      ),
      ...options('max-depth= color? context= after-context= before-context= threads= max-count=', 'text'),
    },
    {
      ...options('a i I r w v h H E G P F n l L z o c p W q 0 1 2 3 4 5 6 7 8 9'),
      ...options('C= A= B= e= m=', 'text'),
      ...options('f='),
      ...denied('O', runsProgram, 'optional'),
    },
  ),
  'show-ref': grammar(
    'show-ref',
    {
      ...options('head tags branches heads verify quiet dereference exists'),
      ...options('hash? abbrev? exclude-existing?', 'text'),
    },
    options('d q s'),
  ),
  describe: grammar('describe', {
    ...options('all tags contains long always first-parent exact-match debug'),
    ...options('abbrev= candidates= match= exclude= dirty? broken?', 'text'),
  }),
  'cat-file': grammar(
    'cat-file',
    {
      ...options('batch-check? batch? follow-symlinks textconv filters use-mailmap allow-unknown-type'),
      ...denied('batch-command', 'it reads commands from stdin', 'optional'),
    },
    options('t s e p'),
  ),
  'merge-base': grammar(
    'merge-base',
    options('all octopus independent is-ancestor fork-point'),
    options('a'),
  ),
  'for-each-ref': grammar(
    'for-each-ref',
    {
      ...options('shell perl python tcl ignore-case omit-empty'),
      ...options(
        'count= sort= format= points-at= merged? no-merged? contains? no-contains? exclude=',
        'text',
      ),
    },
    options('s p'),
  ),
  'symbolic-ref': grammar(
    'symbolic-ref',
    { ...options('quiet delete short no-recurse recurse'), ...options('m=', 'text') },
    { ...options('q d'), ...options('m=', 'text') },
  ),
  'ls-tree': grammar(
    'ls-tree',
    {
      ...options('long name-only name-status object-only full-name full-tree'),
      ...options('abbrev? format=', 'text'),
    },
    options('d r t l z'),
  ),
  reflog: grammar(
    'reflog',
    {
      ...logOptions,
      ...options('all expire? expire-unreachable? rewrite updateref stale-fix dry-run verbose'),
    },
    logShort,
  ),
  apply: grammar(
    'apply',
    {
      ...options(
        'stat numstat summary check index intent-to-add cached 3way reverse reject unidiff-zero apply no-add ' +
          'allow-binary-replacement binary recount inaccurate-eof verbose quiet allow-empty ignore-space-change ignore-whitespace',
      ),
      ...options('exclude= include= whitespace= build-fake-ancestor= p= C=', 'text'),
      ...options('directory='),
      ...denied('unsafe-paths', 'it writes outside the work tree', 'flag'),
    },
    { ...options('N R v q z'), ...options('p= C=', 'text') },
  ),
  'format-patch': grammar(
    'format-patch',
    {
      ...diffOptions,
      ...options(
        'numbered no-numbered signoff stdout attach? inline? thread? no-thread cover-letter no-cover-letter zero-commit base? progress quiet keep-subject',
      ),
      ...options(
        'start-number= subject-prefix= rfc? from? to= cc= in-reply-to= add-header= suffix= signature= reroll-count= filename-max-length= interdiff= range-diff= creation-factor=',
        'text',
      ),
      ...options('output-directory= signature-file='),
    },
    { ...diffShort, ...options('n N s k q'), ...options('v=', 'text'), ...options('o=') },
  ),
  clean: grammar(
    'clean',
    {
      ...options('dry-run force quiet'),
      ...options('exclude=', 'text'),
      ...denied('interactive', interactive, 'flag'),
    },
    { ...options('d f n q x X'), ...options('e=', 'text'), ...denied('i', interactive, 'flag') },
  ),
  version: grammar('version', options('build-options')),
  notes: grammar(
    'notes',
    { ...options('force allow-empty'), ...options('ref= message=', 'text'), ...options('file=') },
    { ...options('f'), ...options('m=', 'text'), ...options('F=') },
  ),
  worktree: grammar(
    'worktree',
    {
      ...options(
        'force detach checkout no-checkout lock quiet track guess-remote porcelain verbose z orphan dry-run',
      ),
      ...options('reason= expire=', 'text'),
    },
    { ...options('f d q v n z'), ...options('b= B=', 'text') },
  ),
  archive: grammar(
    'archive',
    {
      ...options('list verbose worktree-attributes'),
      ...options('format= prefix= add-virtual-file= mtime=', 'text'),
      ...options('output= add-file='),
      ...denied('remote', 'it runs on another host'),
    },
    { ...options('l v 0 1 2 3 4 5 6 7 8 9'), ...options('o=') },
  ),
  'check-ignore': grammar(
    'check-ignore',
    options('quiet verbose stdin non-matching no-index z'),
    options('q v n z'),
  ),
  'check-attr': grammar('check-attr', options('all cached stdin z'), options('a z')),
  'count-objects': grammar('count-objects', options('verbose human-readable'), options('v H')),
  var: grammar('var', options('list'), options('l')),
  'hash-object': grammar(
    'hash-object',
    { ...options('stdin stdin-paths no-filters literally'), ...options('t=', 'text'), ...options('path=') },
    { ...options('w'), ...options('t=', 'text') },
  ),
};

/** Sub-subcommands that may run (the rest write configuration or start programs). */
const nested: Readonly<Record<string, ReadonlySet<string>>> = {
  stash: new Set([
    'list',
    'show',
    'push',
    'save',
    'pop',
    'apply',
    'drop',
    'clear',
    'branch',
    'create',
    'store',
  ]),
  remote: new Set([
    'add',
    'rename',
    'remove',
    'rm',
    'set-head',
    'set-branches',
    'get-url',
    'set-url',
    'show',
    'prune',
    'update',
  ]),
  worktree: new Set(['list', 'add', 'remove', 'prune', 'lock', 'unlock', 'move', 'repair']),
  notes: new Set(['list', 'show', 'add', 'append', 'remove', 'prune', 'get-ref', 'copy']),
  reflog: new Set(['show', 'exists', 'list']),
};

const globalGrammar: ArgvGrammar = {
  name: 'git',
  long: {
    ...options(
      'no-pager paginate version help no-replace-objects literal-pathspecs glob-pathspecs noglob-pathspecs ' +
        'icase-pathspecs no-optional-locks no-advice',
    ),
    ...denied('config-env', configures),
    ...denied('git-dir work-tree namespace', elsewhere),
    ...denied('exec-path', 'it changes where git finds its helper programs', 'optional'),
    ...denied('upload-pack receive-pack', runsProgram),
    ...denied('bare', 'it treats the folder as a bare repository', 'flag'),
    ...denied('super-prefix', elsewhere),
    ...denied('list-cmds', 'not needed', 'optional'),
  },
  short: {
    ...options('p P v h'),
    ...denied('c', configures),
    ...denied('C', elsewhere),
  },
  stopAtPositional: true,
};

function readsConfiguration(args: readonly string[]): string | undefined {
  const first = args.find((arg) => !arg.startsWith('-'));
  const readOnlyFlags = [
    '--get',
    '--get-all',
    '--get-regexp',
    '--get-urlmatch',
    '--list',
    '-l',
    '--show-origin',
    '--show-scope',
    '--name-only',
    '--null',
    '-z',
    '--type=bool',
    '--type=int',
    '--type=path',
    '--bool',
    '--int',
    '--path',
    '--default',
    '--includes',
    '--no-includes',
    '--local',
    '--worktree',
  ];
  for (const arg of args) {
    if (
      ['--global', '--system', '--file', '-f', '--blob'].some(
        (flag) => arg === flag || arg.startsWith(`${flag}=`),
      )
    )
      return '"git config" may only read the repository configuration.';
    if (
      arg.startsWith('-') &&
      !readOnlyFlags.some((flag) => arg === flag || arg.startsWith(`${flag}=`)) &&
      !arg.startsWith('--type=')
    )
      return `"git config ${arg}" is not allowed: "git config" may only read (--get, --get-all, --get-regexp, --list, get, list); configuration can define aliases, hooks and pagers that run programs.`;
  }
  const readsNew = first === 'get' || first === 'list';
  const readsOld = args.some((arg) => arg.startsWith('--get') || arg === '--list' || arg === '-l');
  if (!readsNew && !readsOld)
    return '"git config" may only read (--get, --get-all, --get-regexp, --list, get, list): configuration can define aliases, hooks and pagers that run programs.';
  return undefined;
}

/** git: see the file's comment. */
export const gitRule: ProgramRule = (args, helpers) => {
  const global = applyGrammar(globalGrammar, args, helpers);
  if (global.error) return global.error;
  const index = global.stoppedAt;
  const subcommand = args[index];
  if (subcommand === undefined) return undefined;
  const rest = args.slice(index + 1);
  for (const arg of rest) {
    if (/^(?:ext|fd)::/i.test(arg)) return `The git transport "${arg}" runs arbitrary commands.`;
  }
  if (subcommand === 'config') return readsConfiguration(rest);
  const spec = subcommands[subcommand];
  if (spec === undefined) {
    return `"git ${subcommand}" is not allowed (unknown subcommands may be aliases that run shell commands). Allowed: config, ${Object.keys(subcommands).join(', ')}.`;
  }
  const offset = index + 1;
  const parsed = applyGrammar(spec, rest, {
    ...helpers,
    markText: (at) => helpers.markText(at + offset),
  });
  if (parsed.error) return parsed.error;
  const allowedNested = nested[subcommand];
  const first = parsed.positionals[0]?.value;
  if (allowedNested && first !== undefined && !allowedNested.has(first)) {
    return `"git ${subcommand} ${first}" is not allowed. Allowed: ${[...allowedNested].join(', ')}.`;
  }
  if (subcommand === 'grep') {
    const hasPattern = parsed.options.some((option) => option.name === 'e' || option.name === 'f');
    const pattern = parsed.positionals[0];
    if (!hasPattern && pattern) helpers.markText(pattern.index + offset);
  }
  return undefined;
};
