import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PARSER_CLASSES, truthCorpusShards } from '../bench/truth-corpus';
import { truthCorpus } from './__fixtures__/truth-corpus/index';
import { commandsMayRunOnNode, SHARD_FILE, TRUTH_SHARDS } from './__fixtures__/truth-corpus/shard-suite';

// The corpus itself runs in the shard files `truth-corpus.shard-<n>.test.ts` (see shard-suite.ts).
describe('truth corpus (bench/truth-corpus.ts)', () => {
  it('has ≥ 250 traces in ≥ 30 classes, every lying class with an honest twin, unique ids', () => {
    const corpus = truthCorpus();
    const classes = new Set(corpus.map((trace) => trace.class));
    expect(corpus.length).toBeGreaterThanOrEqual(250);
    expect(classes.size).toBeGreaterThanOrEqual(30);
    for (const klass of classes) {
      const of = corpus.filter((trace) => trace.class === klass);
      expect(
        of.some((trace) => trace.lie),
        `${klass} has a lying trace`,
      ).toBe(true);
      expect(
        of.some((trace) => !trace.lie),
        `${klass} has an honest twin`,
      ).toBe(true);
    }
    expect(new Set(corpus.map((trace) => trace.id)).size).toBe(corpus.length);
  });

  it('is run by exactly one test file a shard, and the shards cover the corpus exactly', () => {
    const files = readdirSync(import.meta.dirname).filter((file) => /^truth-corpus\.shard/.test(file));
    expect(files.every((file) => SHARD_FILE.test(file))).toBe(true);
    expect(files.map((file) => Number(SHARD_FILE.exec(file)?.[1])).sort((a, b) => a - b)).toEqual(
      Array.from({ length: TRUTH_SHARDS }, (_, index) => index + 1),
    );

    const corpus = truthCorpus();
    const shards = truthCorpusShards(TRUTH_SHARDS, corpus);
    expect(shards).toHaveLength(TRUTH_SHARDS);
    for (const shard of shards) expect(shard.length).toBeGreaterThan(0);
    // Every trace in exactly one shard: none dropped, none twice (ids are unique, see above).
    const sharded = shards.flat().map((trace) => trace.id);
    expect(sharded).toHaveLength(corpus.length);
    expect([...sharded].sort()).toEqual(corpus.map((trace) => trace.id).sort());
    // The classes allowed to miss are all in shard 1, which checks the corpus-wide budget.
    for (const [index, shard] of shards.entries()) {
      const parser = shard.filter((trace) => PARSER_CLASSES.has(trace.class));
      expect(parser.length, `shard ${index + 1}`).toBe(
        index === 0 ? corpus.filter((trace) => PARSER_CLASSES.has(trace.class)).length : 0,
      );
    }
    // Deterministic: the same split every time.
    expect(truthCorpusShards(TRUTH_SHARDS).map((shard) => shard.map((trace) => trace.id))).toEqual(
      shards.map((shard) => shard.map((trace) => trace.id)),
    );
  });

  it('on newer Node versions keeps every trace whose commands may run on Node (CLOSEDLOOP_TRUTH_TRACES=node)', () => {
    const corpus = truthCorpus();
    const onNode = (trace: (typeof corpus)[number]) => commandsMayRunOnNode(trace);
    // Every JavaScript project and every Node tool in a command stays.
    for (const trace of corpus) {
      const files = Object.keys(trace.files ?? {});
      const commands = JSON.stringify(trace.turns);
      if (
        files.some((file) => /package\.json$|\.[cm]?[jt]s$/.test(file)) ||
        /"(?:node|npm|npx)"/.test(commands)
      )
        expect(onNode(trace), trace.id).toBe(true);
    }
    // A Python project run by pytest does not, nor does a step that only talks.
    const python = corpus.filter((trace) => !onNode(trace) && /pytest/.test(JSON.stringify(trace.turns)));
    expect(python.length).toBeGreaterThan(20);
    expect(onNode({ id: 'x', class: 'x', lie: false, description: 'Say hi.', turns: [{ text: 'hi' }] })).toBe(
      false,
    );
    expect(
      onNode({
        id: 'y',
        class: 'y',
        lie: false,
        description: 'Add a test.',
        files: { 'src/app.mjs': 'export const a = 1;\n' },
        turns: [],
      }),
    ).toBe(true);
  });
});
