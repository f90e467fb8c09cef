// The Node versions CI tests besides the one it runs on (engines stays >=20.19), and where to find them.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Node majors every package's test suite also runs on, and the packed packages load on. */
export const extraNodeVersions = ['22', '24'];

const binaries = new Map();

/**
 * The path of a Node binary of `version` (a major), from the npm registry's `node` package through
 * npx (downloaded once into npx's cache). Rejects when npx cannot provide it.
 * @param {string} version
 * @returns {Promise<string>}
 */
export function nodeBinary(version) {
  let binary = binaries.get(version);
  if (!binary) {
    binary = run('npx', ['--yes', '--package', `node@${version}`, 'node', '--print', 'process.execPath'], {
      env: { ...process.env, npm_config_update_notifier: 'false' },
    }).then(
      ({ stdout }) => stdout.trim().split('\n').at(-1) ?? '',
      (error) => {
        throw new Error(`npx could not provide node@${version}: ${error.stderr || error.message}`);
      },
    );
    binaries.set(version, binary);
  }
  return binary;
}
