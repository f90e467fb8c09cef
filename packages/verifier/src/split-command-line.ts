/**
 * Splits a command line into argv: whitespace-separated, single and double quotes respected,
 * no expansion (nothing runs through a shell).
 *
 * @example
 * splitCommandLine(`node -e "console.log(1)"`); // ['node', '-e', 'console.log(1)']
 */
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
