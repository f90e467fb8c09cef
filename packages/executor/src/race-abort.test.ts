import { describe, expect, it } from 'vitest';
import { aborted, raceAbort } from './race-abort';

describe('raceAbort', () => {
  it('resolves with the value when the promise wins', async () => {
    await expect(raceAbort(Promise.resolve(7), new AbortController().signal)).resolves.toBe(7);
  });

  it('passes rejections through', async () => {
    await expect(raceAbort(Promise.reject(new Error('boom')), new AbortController().signal)).rejects.toThrow(
      'boom',
    );
  });

  it('resolves with the aborted marker at once, even if the promise never settles', async () => {
    const controller = new AbortController();
    const race = raceAbort(new Promise<never>(() => {}), controller.signal);
    controller.abort();
    await expect(race).resolves.toBe(aborted);
    await expect(raceAbort(Promise.reject(new Error('late')), AbortSignal.abort())).resolves.toBe(aborted);
  });
});
