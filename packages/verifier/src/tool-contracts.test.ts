import type { ToolCallRecord } from '@closedloop/plan';
import { describe, expect, it } from 'vitest';
import {
  checkToolContracts,
  parseToolContracts,
  resolveToolContracts,
  type ToolContractInput,
} from './tool-contracts';
import { VerifierError } from './verifier-error';

let at = 0;
const call = (tool: string, status: ToolCallRecord['status'] = 'success'): ToolCallRecord => ({
  callId: `c${++at}`,
  generatedId: false,
  tool,
  args: {},
  status,
  calledAt: at,
});

/** A code-review agent profile, as configuration. */
const reviewer: ToolContractInput[] = [
  { tool: 'write_file' },
  { tool: 'generate_testbench', nextRequired: 'run_simulation' },
  { tool: 'run_simulation', dependsOn: 'generate_testbench' },
];

const messages = (ledger: ToolCallRecord[], tools: ToolContractInput[] = reviewer, order?: string[]) =>
  checkToolContracts(ledger, { tools, ...(order ? { order } : {}) })
    .filter((finding) => finding.status === 'fail')
    .map((finding) => finding.message);

describe('checkToolContracts', () => {
  it('1: detects the missing run_simulation call', () => {
    expect(messages([call('write_file'), call('generate_testbench')]).sort()).toEqual([
      'Required tool run_simulation was never called.',
      'generate_testbench must be followed by a successful run_simulation, which never came after it.',
    ]);
  });

  it('2: accepts the correct order', () => {
    const findings = checkToolContracts(
      [call('write_file'), call('generate_testbench'), call('run_simulation')],
      { tools: reviewer },
    );
    expect(findings).toEqual([expect.objectContaining({ status: 'pass', check: 'required-tools' })]);
  });

  it('3: detects the wrong order', () => {
    expect(messages([call('write_file'), call('run_simulation'), call('generate_testbench')])).toEqual([
      'generate_testbench must be followed by a successful run_simulation, which never came after it.',
      'run_simulation ran before its dependency generate_testbench had succeeded.',
    ]);
  });

  it('4/5: detects other profiles missing tools', () => {
    const verilog = [
      { tool: 'write_file' },
      { tool: 'generate_verilog_code' },
      { tool: 'analyze_code_quality' },
    ];
    expect(messages([call('write_file'), call('analyze_code_quality')], verilog)).toEqual([
      'Required tool generate_verilog_code was never called.',
    ]);
  });

  it('6: detects a required tool that only failed', () => {
    const found = messages([
      call('write_file'),
      call('generate_testbench'),
      { ...call('run_simulation', 'error'), error: 'sim crashed' },
    ]);
    expect(found).toHaveLength(2);
    expect(found.join('\n')).toMatch(
      /run_simulation was called 1 time\(s\) but never succeeded \(last error: sim crashed\)/,
    );
  });

  it('7: checks dependencies and next-required relations', () => {
    expect(
      messages([call('write_file'), call('generate_testbench'), call('run_simulation', 'error')]),
    ).toContain(
      'generate_testbench must be followed by a successful run_simulation, which never came after it.',
    );
  });

  it('checks order as a subsequence of successful calls, tolerating exploration', () => {
    const tools = [{ tool: 'read_file' }, { tool: 'write_file' }, { tool: 'run_command' }];
    const order = ['read_file', 'write_file', 'run_command'];
    expect(
      messages(
        [call('run_command'), call('read_file'), call('write_file'), call('run_command')],
        tools,
        order,
      ),
    ).toEqual([]);
    expect(messages([call('read_file'), call('run_command'), call('write_file')], tools, order)).toEqual([
      'Tools did not succeed in the required order read_file → write_file → run_command: run_command came too early.',
    ]);
  });

  it('fails P0 when a forbidden tool ran; optional tools may be absent', () => {
    const findings = checkToolContracts([call('git_push')], {
      tools: [
        { tool: 'git_push', forbidden: true },
        { tool: 'lint', required: false },
      ],
    });
    expect(findings).toEqual([
      expect.objectContaining({ priority: 'P0', status: 'fail', evidence: { callId: expect.any(String) } }),
    ]);
  });

  it('accepts a required tool that need not succeed', () => {
    expect(messages([call('probe', 'error')], [{ tool: 'probe', requiresSuccess: false }])).toEqual([]);
  });

  it('returns nothing without contracts', () => {
    expect(checkToolContracts([call('x')], { tools: [] })).toEqual([]);
  });
});

describe('contract configuration', () => {
  it('validates with zod and reports the offending field', () => {
    expect(() => parseToolContracts({ profiles: { a: [{ tool: '' }] } })).toThrow(VerifierError);
    expect(() => parseToolContracts({ profiles: { a: [{ tool: 'x', requierd: true }] } })).toThrow(
      /requierd/,
    );
    expect(() => parseToolContracts({ profiles: { a: [{ tool: 'x' }, { tool: 'x' }] } })).toThrow(
      /two contracts/,
    );
    expect(() => parseToolContracts({ profiles: { a: [{ tool: 'x', dependsOn: 'x' }] } })).toThrow(
      /depends on itself/,
    );
    expect(() => parseToolContracts([])).toThrow(expect.objectContaining({ code: 'invalid-contract' }));
    expect(
      parseToolContracts({ profiles: { a: { tools: [{ tool: 'x' }], order: ['x'] } } }).profiles.a,
    ).toBeDefined();
  });

  it('merges step requiredTools (in order) with a profile', () => {
    const set = resolveToolContracts({
      requiredTools: ['read_file', 'write_file'],
      config: {
        profiles: {
          coder: {
            tools: [{ tool: 'run_command', dependsOn: 'write_file' }],
            order: ['write_file', 'run_command'],
          },
        },
      },
      profile: 'coder',
    });
    expect(set.tools.map((tool) => tool.tool)).toEqual(['run_command', 'read_file', 'write_file']);
    expect(set.order).toEqual(['read_file', 'write_file', 'run_command']);
    expect(() => resolveToolContracts({ profile: 'coder' })).toThrow(
      expect.objectContaining({ code: 'unknown-profile' }),
    );
  });
});
