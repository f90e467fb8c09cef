/**
 * Symbol lookups from syntax trees, per language: a generated source file of about 500 lines
 * (40 units of a function, a class or struct with methods, a constant, comments and strings that
 * mention names), parsed by the lezer grammar and searched by `findSymbol`. Prints the one-time
 * grammar load and the median milliseconds per file (every run parses a fresh text: no cache
 * hit); for JS/TS also the TypeScript compiler's parse of the same text (`createSourceFile`, the
 * verifier's parser before lezer), measured interleaved in the same runs.
 *
 * Run: `npx tsx --conditions=@closedloop/source bench/find-symbol.bench.ts`
 */
import ts from 'typescript';
import { findSymbol } from '../src/find-symbol';

const UNITS = 40;
const RUNS = 30;

const GENERATORS: Record<string, { file: string; unit: (index: number) => string; wanted: string }> = {
  TypeScript: {
    file: 'module.ts',
    unit: (i) =>
      `// helper${i} keeps "function ghost${i}() {}" out\nexport function helper${i}(value: number): number {\n  const text = \`value \${value}\`;\n  return text.length + ${i};\n}\nexport class Service${i} {\n  private count = ${i};\n  run(input: string): string { return input.repeat(this.count); }\n  stop = () => this.count;\n}\nexport const LIMIT_${i} = ${i};\n`,
    wanted: `Service${UNITS - 1}.run`,
  },
  JavaScript: {
    file: 'module.js',
    unit: (i) =>
      `// helper${i}\nexport function helper${i}(value) {\n  const text = "function ghost${i}() {}";\n  return text.length + value;\n}\nexport class Service${i} {\n  run(input) { return input.repeat(${i}); }\n}\nmodule.exports.extra${i} = () => ${i};\nexport const LIMIT_${i} = ${i};\n`,
    wanted: `Service${UNITS - 1}.run`,
  },
  Python: {
    file: 'module.py',
    unit: (i) =>
      `# helper${i}\ndef helper${i}(value):\n    text = "def ghost${i}(): pass"\n    return len(text) + value\n\n\nclass Service${i}:\n    """class Ghost${i}: not code"""\n    def run(self, data):\n        return data * ${i}\n\n\nLIMIT_${i} = ${i}\n`,
    wanted: `Service${UNITS - 1}.run`,
  },
  Go: {
    file: 'module.go',
    unit: (i) =>
      `// Helper${i} is documented.\nfunc Helper${i}(value int) int {\n\ttext := "func Ghost${i}() {}"\n\treturn len(text) + value\n}\n\ntype Service${i} struct{ count int }\n\nfunc (s *Service${i}) Run(input string) string { return input }\n\nconst Limit${i} = ${i}\n`,
    wanted: `Service${UNITS - 1}.Run`,
  },
  Rust: {
    file: 'module.rs',
    unit: (i) =>
      `/// helper${i}\npub fn helper${i}(value: usize) -> usize {\n    let text = "fn ghost${i}() {}";\n    text.len() + value\n}\n\npub struct Service${i} { count: usize }\n\nimpl Service${i} {\n    pub fn run(&self, input: &str) -> String { input.repeat(self.count) }\n}\n\npub const LIMIT_${i}: usize = ${i};\n`,
    wanted: `Service${UNITS - 1}.run`,
  },
  Java: {
    file: 'Module.java',
    unit: (i) =>
      `/** Service${i}. */\nclass Service${i} {\n  static final int LIMIT = ${i};\n  private int count = ${i};\n  // void ghost${i}() {}\n  public String run(String input) {\n    String text = "void ghost${i}() {}";\n    return input.repeat(count) + text;\n  }\n  int helper(int value) { return value + LIMIT; }\n}\n`,
    wanted: `Service${UNITS - 1}.run`,
  },
};

const header = (name: string) =>
  name === 'Go' ? 'package bench\n\n' : name === 'Java' ? 'package bench;\n\n' : '';
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

console.log(`findSymbol: ${UNITS} units per file, median of ${RUNS} runs, fresh text each run`);
console.log(
  '| language | lines | first call (grammar load) ms | ms per file (median) | TypeScript compiler parse ms (median) |',
);
console.log('| --- | ---: | ---: | ---: | ---: |');
for (const [name, generator] of Object.entries(GENERATORS)) {
  const build = (run: number) =>
    `${header(name)}${Array.from({ length: UNITS }, (_, index) => generator.unit(index)).join('\n')}\n${name === 'Python' ? '#' : '//'} run ${run}\n`;
  const lines = build(0).split('\n').length;
  let started = performance.now();
  const first = await findSymbol({
    fileName: generator.file,
    text: build(-1),
    name: generator.wanted,
    kind: 'function',
  });
  const firstMs = performance.now() - started;
  if (!first) throw new Error(`${name}: ${generator.wanted} not found`);
  const times: number[] = [];
  const compilerTimes: number[] = [];
  const script = /\.[jt]s$/.test(generator.file);
  for (let run = 0; run < RUNS; run += 1) {
    const text = build(run);
    if (script) {
      const before = performance.now();
      ts.createSourceFile(generator.file, `${text} `, ts.ScriptTarget.Latest, true);
      compilerTimes.push(performance.now() - before);
    }
    started = performance.now();
    const found = await findSymbol({
      fileName: generator.file,
      text,
      name: generator.wanted,
      kind: 'function',
    });
    times.push(performance.now() - started);
    if (!found) throw new Error(`${name}: ${generator.wanted} not found`);
  }
  const compiler = script ? median(compilerTimes).toFixed(2) : '—';
  console.log(`| ${name} | ${lines} | ${firstMs.toFixed(1)} | ${median(times).toFixed(2)} | ${compiler} |`);
}
