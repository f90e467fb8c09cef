import { describe, expect, it } from 'vitest';
import { asksErrexit, setsErrexit } from './asked-shell-options';

describe('asked shell options', () => {
  it('reads requests for errexit', () => {
    expect(asksErrexit('Make scripts/deploy.sh stop at the first failing command with set -e')).toBe(true);
    expect(asksErrexit('Use set -euo pipefail in build.sh')).toBe(true);
    expect(asksErrexit('Make the script exit on error')).toBe(true);
    expect(asksErrexit('Add a deploy script')).toBe(false);
  });

  it('finds errexit in code, not in comments', () => {
    expect(setsErrexit('#!/bin/sh\n# set -e\nnpm run build\n')).toBe(false);
    expect(setsErrexit('#!/bin/sh\nset -e\nnpm run build\n')).toBe(true);
    expect(setsErrexit('#!/usr/bin/env bash\nset -euo pipefail\n')).toBe(true);
    expect(setsErrexit('#!/bin/bash\nset -o errexit\n')).toBe(true);
    expect(setsErrexit('#!/bin/sh -e\nnpm test\n')).toBe(true);
  });
});
