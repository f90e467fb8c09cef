/**
 * CI configuration a step added that never runs: a GitHub Actions job or step under `if: false`
 * (`if: ${{ false }}`, `if: 0`), a GitLab job with `when: never`. The workflow file is there and
 * names the command; no run of it will ever happen.
 */

/** CI configuration files. */
export const CI_FILE =
  /(?:^|\/)\.github\/workflows\/[^/]+\.ya?ml$|(?:^|\/)\.gitlab-ci\.ya?ml$|(?:^|\/)\.circleci\/config\.ya?ml$|(?:^|\/)azure-pipelines\.ya?ml$|(?:^|\/)bitbucket-pipelines\.ya?ml$/;

const NEVER =
  /^\s*(?:-\s*)?(?:if:\s*(?:\$\{\{\s*)?(?:false|0|'false'|"false"|'0'|"0")\s*(?:\}\})?|when:\s*['"]?never['"]?)\s*(?:#.*)?$/i;

/** The request asks to switch the job off ("disable the deploy job", "skip it for now"). */
const DISABLE_ASKED = /\b(?:disable|disabled|turn\s+off|switch\s+off|skip|pause|deactivate|never\s+run)\b/i;

/** The lines the step added to a CI file that switch a job or step off for good. */
export function neverRunLines(before: string | undefined, after: string, description: string): string[] {
  if (DISABLE_ASKED.test(description)) return [];
  const old = new Set((before ?? '').split('\n').map((line) => line.trim()));
  return after
    .split('\n')
    .filter((line) => NEVER.test(line) && !old.has(line.trim()))
    .map((line) => line.trim());
}
