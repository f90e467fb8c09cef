import { describe, expect, it } from 'vitest';
import { formatOverheadResult, measureOverhead, median } from './measure-overhead';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('median', () => {
  it('is the middle value, or the mean of the two middle values', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBe(0);
  });
});

describe('measureOverhead', () => {
  it('runs interleaved pairs after the warm-up and compares medians with the target', async () => {
    let rawCalls = 0;
    let adapterCalls = 0;
    const slow = await measureOverhead({
      label: 'slow adapter',
      raw: async () => {
        rawCalls++;
      },
      adapter: async () => {
        adapterCalls++;
        await pause(3);
      },
      calls: 6,
      warmup: 2,
    });
    expect(rawCalls).toBe(8);
    expect(adapterCalls).toBe(8);
    expect(slow.overheadMs).toBeGreaterThan(1);
    expect(slow.pairedOverheadMs).toBeGreaterThan(1);
    expect(slow).toMatchObject({ label: 'slow adapter', calls: 6, targetMs: 0.5, pass: false });
    expect(formatOverheadResult(slow)).toMatch(
      /^slow adapter .*overhead \d+\.\d{3} ms .*target < 0\.5 ms: FAIL$/,
    );

    const same = await measureOverhead({
      label: 'same',
      raw: () => pause(1),
      adapter: () => pause(1),
      calls: 6,
      warmup: 0,
      targetMs: 50,
    });
    expect(same.pass).toBe(true);
    expect(formatOverheadResult(same)).toMatch(/PASS$/);
  });

  it('rejects bad options with invalid-options', async () => {
    const fn = async () => {};
    for (const bad of [
      { calls: 0 },
      { calls: 1.5 },
      { warmup: -1 },
      { targetMs: 0 },
      { targetMs: Number.NaN },
    ]) {
      await expect(measureOverhead({ label: 'x', raw: fn, adapter: fn, ...bad })).rejects.toMatchObject({
        code: 'invalid-options',
      });
    }
    await expect(
      measureOverhead({ label: 'x', raw: fn, adapter: 'nope' as unknown as () => Promise<void> }),
    ).rejects.toMatchObject({ code: 'invalid-options' });
  });
});
