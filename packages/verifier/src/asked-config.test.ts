import { describe, expect, it } from 'vitest';
import { addedSettingKeys, askedConfig, isSettingsFile, settingRead } from './asked-config';

describe('askedConfig', () => {
  it('reads a configurability ask and the env vars and keys it names', () => {
    expect(askedConfig('Make the request timeout in src/client.js configurable via config.json')).toEqual({
      envVars: [],
      keys: [],
    });
    expect(askedConfig('Make the port configurable with the `APP_PORT` environment variable')).toEqual({
      envVars: ['APP_PORT'],
      keys: [],
    });
    expect(askedConfig('Make the timeout configurable via a `timeoutMs` key in config.json')?.keys).toEqual([
      'timeoutMs',
    ]);
    expect(askedConfig('Load the batch size in app/worker.py from settings.yaml')).toBeDefined();
  });

  it('reads nothing from steps that do not ask the program to read a setting', () => {
    for (const description of [
      'Add a --verbose flag to src/cli.js',
      'Document the `APP_PORT` env var in README.md',
      'Fix the timeout in src/client.js',
    ])
      expect(askedConfig(description), description).toBeUndefined();
  });
});

describe('addedSettingKeys and isSettingsFile', () => {
  it('lists the leaf keys a step added to JSON, YAML and .env files', () => {
    expect(addedSettingKeys('config.json', '{"a":1}', '{"a":1,"http":{"timeoutMs":5}}')).toEqual([
      'timeoutMs',
    ]);
    expect(addedSettingKeys('settings.yaml', 'name: x\n', 'name: x\nworker:\n  retry_limit: 5\n')).toEqual([
      'retry_limit',
    ]);
    expect(addedSettingKeys('.env.example', undefined, 'APP_PORT=8080\n# a comment\n')).toEqual(['APP_PORT']);
  });

  it('tells the program settings from tool and package manifests', () => {
    expect(isSettingsFile('config.json', [])).toBe(true);
    expect(isSettingsFile('config/app.yaml', [])).toBe(true);
    expect(isSettingsFile('.env', [])).toBe(true);
    expect(isSettingsFile('package.json', [])).toBe(false);
    expect(isSettingsFile('tsconfig.json', [])).toBe(false);
    expect(isSettingsFile('data/users.json', [])).toBe(false);
    expect(isSettingsFile('data/users.json', ['data/users.json'])).toBe(true);
  });
});

describe('settingRead', () => {
  const js = (text: string) => [{ file: 'src/a.js', text }];
  it('is read when code names the setting and uses what it read', async () => {
    expect(await settingRead('timeoutMs', js('fetch(u, { timeout: config.timeoutMs });\n'))).toBe('read');
    expect(
      await settingRead(
        'PORT',
        js("const port = Number(process.env['PORT'] ?? 80);\nserver.listen(port);\n"),
      ),
    ).toBe('read');
    expect(
      await settingRead('retry_limit', [
        { file: 'app/w.py', text: 'limit = settings["retry_limit"]\nfor _ in range(limit):\n    pass\n' },
      ]),
    ).toBe('read');
  });

  it('is dead when only a variable nothing uses holds it, absent when only a comment names it', async () => {
    expect(
      await settingRead(
        'REQUEST_TIMEOUT_MS',
        js('const t = Number(process.env.REQUEST_TIMEOUT_MS);\nrun(3000);\n'),
      ),
    ).toBe('dead');
    expect(await settingRead('timeoutMs', js('// set timeoutMs in config.json\nrun(3000);\n'))).toBe(
      'absent',
    );
    expect(await settingRead('timeoutMs', js('run(config.timeout);\n'))).toBe('absent');
  });
});
