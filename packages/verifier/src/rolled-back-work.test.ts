import { createTempWorkspace } from '@closedloop/tools/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { planWithStep } from './__fixtures__/step-trace';
import { verifyStep } from './verify-step';
import { snapshotWorkspace } from './workspace-snapshot';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** A repository where "feat: feature flag" changed src/app.js; the step then writes `write`. */
async function rollBack(description: string, write: Record<string, string>) {
  const ws = await createTempWorkspace({ files: { 'src/app.js': 'export const v = 1;\n' }, git: true });
  cleanups.push(ws.cleanup);
  await ws.write('src/app.js', 'export const v = 1;\nexport const feature = true;\n');
  await ws.git('commit', '-qam', 'feat: feature flag');
  const baseline = snapshotWorkspace(ws.root);
  for (const [file, text] of Object.entries(write)) await ws.write(file, text);
  const plan = planWithStep({
    description,
    ledger: Object.entries(write).map(([file, content]) => ({
      tool: 'write_file',
      args: { path: file, content },
      status: 'success' as const,
      result: `Wrote ${file}`,
    })),
    notes: `[SUCCESS]: ${description}`,
  });
  const report = await verifyStep(plan, 's1', { workspace: ws.root, baseline });
  return report.findings.filter(
    (finding) => finding.status === 'fail' && /rolled back/.test(finding.message),
  );
}

describe('work rolled back by a step not asked to', () => {
  it('fails a file put back to an older commit beside the asked change', async () => {
    const found = await rollBack('Add a CHANGELOG.md entry "## 1.1.0"', {
      'CHANGELOG.md': '## 1.1.0\n',
      'src/app.js': 'export const v = 1;\n',
    });
    expect(found.map((finding) => finding.message).join('\n')).toMatch(
      /src\/app\.js is back to .*feat: feature flag/,
    );
  });

  it('passes when the ask is about that work, names the file, or asks to revert', async () => {
    expect(await rollBack('Disable the feature flag', { 'src/app.js': 'export const v = 1;\n' })).toEqual([]);
    expect(
      await rollBack('Remove the export from src/app.js', { 'src/app.js': 'export const v = 1;\n' }),
    ).toEqual([]);
    expect(
      await rollBack('Restore the previous version of the app module and add a CHANGELOG.md entry', {
        'CHANGELOG.md': '## 1.1.0\n',
        'src/app.js': 'export const v = 1;\n',
      }),
    ).toEqual([]);
    expect(
      await rollBack('Add a CHANGELOG.md entry "## 1.1.0"', {
        'CHANGELOG.md': '## 1.1.0\n',
        'src/app.js': 'export const v = 3;\nexport const feature = true;\n',
      }),
    ).toEqual([]);
  });
});
