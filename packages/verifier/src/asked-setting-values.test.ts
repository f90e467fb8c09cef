import { describe, expect, it } from 'vitest';
import { askedSettingValues, isAskedValue, mentionsKey, settingValue } from './asked-setting-values';

describe('askedSettingValues', () => {
  it.each([
    ['Set timeout to 30 in config.yaml', [{ key: 'timeout', value: '30', files: ['config.yaml'] }]],
    ['Set "port" to 8080 in config/app.json.', [{ key: 'port', value: '8080', files: ['config/app.json'] }]],
    [
      'Change `port` in config/app.json to `8080`',
      [{ key: 'port', value: '8080', files: ['config/app.json'] }],
    ],
    ['In .env, set the LOG_LEVEL variable to debug', [{ key: 'LOG_LEVEL', value: 'debug', files: ['.env'] }]],
    ['Update the version to 1.2.0', [{ key: 'version', value: '1.2.0', files: [] }]],
    [
      'Bump the version to 2.0.0 in package.json',
      [{ key: 'version', value: '2.0.0', files: ['package.json'] }],
    ],
    ['Raise maxConnections to 50 in db.toml', [{ key: 'maxConnections', value: '50', files: ['db.toml'] }]],
    [
      'In config.yaml set timeout to 30, retries to 5 and `mode` to "fast"',
      [
        { key: 'timeout', value: '30', files: ['config.yaml'] },
        { key: 'retries', value: '5', files: ['config.yaml'] },
        { key: 'mode', value: 'fast', files: ['config.yaml'] },
      ],
    ],
    [
      'Set timeout to 30 and restart to apply it in config.yaml',
      [{ key: 'timeout', value: '30', files: ['config.yaml'] }],
    ],
    [
      'Set port to 8080 in the [server] table of config.toml',
      [{ key: 'port', value: '8080', files: ['config.toml'], parents: ['server'] }],
    ],
    [
      'Set pool to 10 under `database` in config.yaml',
      [{ key: 'pool', value: '10', files: ['config.yaml'], parents: ['database'] }],
    ],
  ])('%s', (description, expected) => {
    // Whether a value is typed is tested below.
    expect(askedSettingValues(description).map(({ typed: _typed, ...asked }) => asked)).toEqual(expected);
  });

  it.each([
    'Set up CI to run the tests',
    'Set it to 5 in config.yaml',
    'Set the timeout to 30 seconds in config.yaml',
    'Change the button color to the brand blue',
    'Create src/slugify.js exporting slugify(text)',
    'Update config.yaml to the new format',
    'Increase the timeout to 60 seconds in config.yaml',
    'Lower it to 5',
  ])('asks for no value: %s', (description) => {
    expect(askedSettingValues(description)).toEqual([]);
  });
});

describe('settingValue', () => {
  it('ignores a copy in a YAML comment', async () => {
    expect(await settingValue('config.yaml', 'retries: 3\ntimeout: 10\n# timeout: 30\n', 'timeout')).toEqual({
      value: '10',
      line: 2,
    });
  });

  it('takes the shallowest entry of a key, the last one there', async () => {
    const text = '{\n  "port": 3000,\n  "dev": { "port": 8080 },\n  "port": 3001\n}\n';
    expect(await settingValue('app.json', text, 'port')).toEqual({ value: '3001', line: 4 });
    expect(await settingValue('app.json', '{ "server": { "port": 8080 } }', 'server.port')).toEqual({
      value: '8080',
      line: 1,
    });
  });

  it('prefers the key as written to a look-alike after it', async () => {
    const text = '{\n  "port": 3000,\n  "port ": 8080,\n  "Port": 8080\n}\n';
    expect(await settingValue('app.json', text, 'port')).toEqual({ value: '3000', line: 2 });
    expect(await settingValue('a.yaml', 'log-level: info\n', 'log_level')).toMatchObject({ value: 'info' });
  });

  it('reads .env and TOML lines; null without the key, undefined for other files', async () => {
    expect(await settingValue('.env', 'export LOG_LEVEL="debug"\n', 'log_level')).toMatchObject({
      value: 'debug',
    });
    expect(await settingValue('a.toml', '[server]\nport = 80\n', 'port')).toMatchObject({ value: '80' });
    expect(await settingValue('a.toml', '[server]\nhost = "x"\n', 'port')).toBeNull();
    expect(await settingValue('a.js', 'export const port = 1;', 'port')).toBeUndefined();
  });

  it('asks the key under the parents named or dotted, and says where it lies instead', async () => {
    const toml = '[server]\nhost = "0.0.0.0"\n\n[database]\nport = 8080\n';
    expect(await settingValue('a.toml', toml, 'port', ['server'])).toEqual({
      value: '8080',
      line: 5,
      elsewhere: 'database',
    });
    expect(await settingValue('a.toml', `${toml}[app.server]\nport = 80\n`, 'port', ['server'])).toEqual({
      value: '80',
      line: 7,
    });
    const yaml = 'database:\n  url: x\ncache:\n  pool: 10\n';
    expect(await settingValue('c.yaml', yaml, 'database.pool')).toMatchObject({ elsewhere: 'cache' });
    expect(await settingValue('c.yaml', 'database:\n  pool: 10\n', 'database.pool')).toEqual({
      value: '10',
      line: 2,
    });
    expect(await settingValue('a.properties', 'log.level=debug\n', 'log.level')).toEqual({
      value: 'debug',
      line: 1,
    });
  });

  it('knows keys the file may spell otherwise', async () => {
    expect(await mentionsKey('c.yaml', 'timeout_seconds: 30\n', 'timeout')).toBe(true);
    expect(await mentionsKey('c.yaml', 'timeout: 30\n# retries: 5\n', 'retries')).toBe(false);
    expect(await mentionsKey('c.md', 'x', 'retries')).toBeUndefined();
  });

  it('compares values without quotes, case or spaces', () => {
    expect(isAskedValue('"8080"', '8080')).toBe(true);
    expect(isAskedValue('True', 'true')).toBe(true);
    expect(isAskedValue('10', '30')).toBe(false);
  });
});

describe('typed values', () => {
  it('marks a bare boolean asked as typed, and a quoted value in the file as quoted', async () => {
    expect(askedSettingValues('Set compilerOptions.strict to true in tsconfig.json')).toEqual([
      { key: 'compilerOptions.strict', value: 'true', files: ['tsconfig.json'], typed: true },
    ]);
    expect(askedSettingValues('Set mode to "true" in a.json')[0]?.typed).toBeUndefined();
    expect(
      await settingValue(
        'tsconfig.json',
        '{ "compilerOptions": { "strict": "true" } }',
        'compilerOptions.strict',
      ),
    ).toMatchObject({ value: 'true', quoted: true });
    expect(
      await settingValue(
        'tsconfig.json',
        '{ "compilerOptions": { "strict": true } }',
        'compilerOptions.strict',
      ),
    ).not.toHaveProperty('quoted');
  });

  it('marks a bare whole number asked as typed, but not a decimal, a quoted one or a version key', () => {
    expect(askedSettingValues('Set port to 8080 in config.json')[0]?.typed).toBe(true);
    expect(askedSettingValues('Change workers to 4 in settings.toml')[0]?.typed).toBe(true);
    expect(askedSettingValues('Set port to "8080" in config.json')[0]?.typed).toBeUndefined();
    expect(askedSettingValues('Set ratio to 3.8 in config.yaml')[0]?.typed).toBeUndefined();
    expect(askedSettingValues('Set version to 3 in compose.yaml')[0]?.typed).toBeUndefined();
  });
});
