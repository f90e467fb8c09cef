import { describe, expect, it } from 'vitest';
import { askedUpgrade, upgradeDisagreement } from './asked-upgrades';

const manifest = (range: string) => JSON.stringify({ name: 'demo', dependencies: { 'left-pad': range } });
const npmLock = (version: string) =>
  JSON.stringify({ lockfileVersion: 3, packages: { 'node_modules/left-pad': { version } } });

describe('askedUpgrade', () => {
  it('reads the package and the version asked', () => {
    expect(askedUpgrade('Upgrade `left-pad` to 1.3.0')).toEqual({ name: 'left-pad', version: '1.3.0' });
    expect(askedUpgrade('Bump the lodash dependency from 4.17.15 to ^4.17.21')).toEqual({
      name: 'lodash',
      version: '4.17.21',
    });
    expect(askedUpgrade('update @types/node to version 20')).toEqual({ name: '@types/node', version: '20' });
    expect(askedUpgrade('Update the typescript dev dependency to version 5.4.5')).toEqual({
      name: 'typescript',
      version: '5.4.5',
    });
    expect(askedUpgrade('Pin requests to version 2.31.0 in requirements.txt')).toEqual({
      name: 'requests',
      version: '2.31.0',
      pinned: true,
    });
    expect(askedUpgrade('Upgrade the dependencies')).toBeUndefined();
    expect(askedUpgrade('Update the README to 2 sections')).toBeUndefined();
  });
});

describe('upgradeDisagreement', () => {
  const upgrade = { name: 'left-pad', version: '1.3.0' };
  const files = (entries: Record<string, string>) => (file: string) => entries[file];

  it('asks a pinned version to be exact, in package.json and requirements.txt', () => {
    const pinned = { ...upgrade, pinned: true as const };
    expect(upgradeDisagreement(pinned, files({ 'package.json': manifest('^1.3.0') }))).toMatch(/a range/);
    expect(upgradeDisagreement(pinned, files({ 'package.json': manifest('1.3.0') }))).toBeUndefined();
    const requests = { name: 'requests', version: '2.31.0', pinned: true as const };
    const reqs = (line: string) => files({ 'requirements.txt': `flask==3.0.0\n${line}\n` });
    expect(upgradeDisagreement(requests, reqs('requests>=2.31.0'))).toMatch(/a range/);
    expect(upgradeDisagreement(requests, reqs('requests'))).toMatch(/with no version/);
    expect(upgradeDisagreement(requests, reqs('Requests[socks]==2.31.0  # http'))).toBeUndefined();
    expect(
      upgradeDisagreement({ name: 'requests', version: '2.31.0' }, reqs('requests>=2.31.0')),
    ).toBeUndefined();
  });

  it('is silent when manifest, lockfile and node_modules agree, or the manifest does not list it', () => {
    expect(upgradeDisagreement(upgrade, files({ 'package.json': manifest('^1.3.0') }))).toBeUndefined();
    expect(
      upgradeDisagreement(
        upgrade,
        files({
          'package.json': manifest('1.3.0'),
          'package-lock.json': npmLock('1.3.0'),
          'node_modules/left-pad/package.json': '{"version":"1.3.0"}',
        }),
      ),
    ).toBeUndefined();
    expect(upgradeDisagreement(upgrade, files({ 'package.json': '{"name":"x"}' }))).toBeUndefined();
  });

  it('names the record that still holds another version', () => {
    expect(upgradeDisagreement(upgrade, files({ 'package.json': manifest('^1.1.0') }))).toMatch(/still asks/);
    expect(
      upgradeDisagreement(
        upgrade,
        files({ 'package.json': manifest('1.3.0'), 'package-lock.json': npmLock('1.1.0') }),
      ),
    ).toMatch(/package-lock\.json still resolves 1\.1\.0/);
    expect(
      upgradeDisagreement(
        upgrade,
        files({
          'package.json': manifest('^1.3.0'),
          'yarn.lock': 'left-pad@^1.1.0:\n  version "1.1.0"\n  resolved "x"\n',
        }),
      ),
    ).toMatch(/yarn\.lock still resolves 1\.1\.0/);
    expect(
      upgradeDisagreement(
        upgrade,
        files({
          'package.json': manifest('1.3.0'),
          'pnpm-lock.yaml': 'packages:\n\n  /left-pad@1.1.0:\n    resolution: {}\n',
        }),
      ),
    ).toMatch(/pnpm-lock\.yaml still resolves 1\.1\.0/);
    expect(
      upgradeDisagreement(
        upgrade,
        files({
          'package.json': manifest('1.3.0'),
          'node_modules/left-pad/package.json': '{"version":"1.1.0"}',
        }),
      ),
    ).toMatch(/node_modules\/left-pad is still 1\.1\.0/);
  });
});
