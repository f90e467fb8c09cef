/**
 * Shell scripts asked to stop at the first failing command ("add `set -e`", "make deploy.sh exit
 * on error", "use set -euo pipefail") that hold the option only in a comment (`# set -e`) or not
 * at all. Read from the script's text: an active `set -e` (`-eu`, `-o errexit`, `-euo pipefail`)
 * line, or `-e` on the shebang line (`#!/bin/sh -e`).
 */

/** Shell scripts by name. */
export const SHELL_SCRIPT = /\.(?:sh|bash|zsh|ksh)$/;

/** The request asks for errexit. */
const ERREXIT_ASKED =
  /\bset\s+-[a-z]*e[a-z]*\b|\bset\s+-o\s+errexit\b|\berrexit\b|\b(?:exit|stop|abort|fail|bail\s+out)\s+(?:immediately\s+)?(?:on|at|after)\s+(?:the\s+)?(?:first\s+)?(?:any\s+)?(?:error|failure|failing\s+command|failed\s+command|non-?zero\s+exit)/i;

/** Whether `description` asks a shell script to stop at its first failing command. */
export function asksErrexit(description: string): boolean {
  return ERREXIT_ASKED.test(description);
}

/** Whether a shell script's code (comments aside) turns errexit on. */
export function setsErrexit(text: string): boolean {
  const lines = text.split('\n');
  if (/^#!.*\s-[a-z]*e[a-z]*\b/.test(lines[0] ?? '')) return true;
  return lines.some((line) => {
    const code = line.replace(/(^|\s)#.*$/, '$1').trim();
    return /(?:^|[;&|]\s*)set\s+(?:-[a-zA-Z]*e[a-zA-Z]*|(?:-[a-zA-Z]*\s+)*-o\s+errexit)\b/.test(code);
  });
}
