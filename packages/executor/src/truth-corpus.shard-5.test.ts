import { describeTruthShard } from './__fixtures__/truth-corpus/shard-suite';

// One of the truth corpus's shard files (see shard-suite.ts; the shard is this file's number).
describeTruthShard(import.meta.url);
