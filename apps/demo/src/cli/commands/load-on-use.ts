/**
 * What the commands that start, continue or serve runs need once they run: the runners (cortex,
 * the tools, Redis for `--store`) and the terminal view. Loaded with `import()` at the point of
 * use, so `closedloop --help`, `--version` and every `<command> --help` load none of it.
 */
export async function loadRunCommandParts() {
  const [{ runnerFromFlags }, { runAndRender }] = await Promise.all([
    import('./runner-from-flags'),
    import('../run-and-render'),
  ]);
  return { runnerFromFlags, runAndRender };
}
