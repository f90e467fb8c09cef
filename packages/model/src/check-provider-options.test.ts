import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  checkModelId,
  checkProviderOptions,
  checkStreamIdleTimeout,
  environmentVariable,
} from './check-provider-options';

function errorOf(fn: () => void): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}

const base = { factory: 'createAcme', provider: 'acme', baseURLExample: 'https://api.acme.test/v1' };

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('checkProviderOptions', () => {
  it('accepts valid options and the defaults', () => {
    expect(() => checkProviderOptions(base)).not.toThrow();
    expect(() =>
      checkProviderOptions({ ...base, baseURL: 'http://127.0.0.1:8000/v1', timeoutMs: 1 }),
    ).not.toThrow();
  });

  it('rejects an empty name, a non-http(s) baseURL and a bad timeout with bad-request', () => {
    expect(errorOf(() => checkProviderOptions({ ...base, provider: ' ' }))).toMatchObject({
      code: 'bad-request',
      message: 'createAcme: name must not be empty',
    });
    for (const baseURL of ['api.acme.test', 'ftp://acme.test', '']) {
      expect(errorOf(() => checkProviderOptions({ ...base, baseURL }))).toMatchObject({
        code: 'bad-request',
        provider: 'acme',
        message: `createAcme: baseURL ${JSON.stringify(baseURL)} is not a valid http(s) URL; expected e.g. https://api.acme.test/v1`,
      });
    }
    for (const timeoutMs of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(errorOf(() => checkProviderOptions({ ...base, timeoutMs }))).toMatchObject({
        code: 'bad-request',
        message: expect.stringContaining('timeoutMs must be a positive number'),
      });
    }
  });
});

describe('streamIdleTimeoutMs', () => {
  it('accepts 0 and Infinity (off) and positive numbers; rejects NaN, negatives and strings', () => {
    for (const streamIdleTimeoutMs of [0, 1, 120_000, Number.POSITIVE_INFINITY, undefined]) {
      expect(() => checkProviderOptions({ ...base, streamIdleTimeoutMs })).not.toThrow();
      expect(() => checkStreamIdleTimeout({ ...base, streamIdleTimeoutMs })).not.toThrow();
    }
    for (const [streamIdleTimeoutMs, shown] of [
      [Number.NaN, 'NaN'],
      [-1, '-1'],
      ['30000', '"30000"'],
      [null, 'null'],
    ] as const) {
      const expected = {
        code: 'bad-request',
        provider: 'acme',
        message: `createAcme: streamIdleTimeoutMs must be a number of milliseconds >= 0 (0 turns the stall guard off), got ${shown}`,
      };
      expect(errorOf(() => checkStreamIdleTimeout({ ...base, streamIdleTimeoutMs }))).toMatchObject(expected);
      expect(
        errorOf(() => checkProviderOptions({ ...base, streamIdleTimeoutMs: streamIdleTimeoutMs as number })),
      ).toMatchObject(expected);
    }
  });
});

describe('checkModelId', () => {
  it('accepts a non-empty string and rejects anything else', () => {
    expect(() => checkModelId({ ...base, modelId: 'acme-1' })).not.toThrow();
    for (const modelId of ['', '  ', undefined, 42]) {
      expect(errorOf(() => checkModelId({ ...base, modelId }))).toMatchObject({
        code: 'bad-request',
        message: expect.stringContaining('model id must be a non-empty string'),
      });
    }
  });
});

describe('environmentVariable', () => {
  it('reads a trimmed, non-blank variable at call time', () => {
    expect(environmentVariable('CLOSEDLOOP_TEST_KEY')).toBeUndefined();
    vi.stubEnv('CLOSEDLOOP_TEST_KEY', '  key-1 ');
    expect(environmentVariable('CLOSEDLOOP_TEST_KEY')).toBe('key-1');
    vi.stubEnv('CLOSEDLOOP_TEST_KEY', '   ');
    expect(environmentVariable('CLOSEDLOOP_TEST_KEY')).toBeUndefined();
  });
});
