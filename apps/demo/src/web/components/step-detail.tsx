import { useEffect, useState } from 'preact/hooks';
import { excerpt, formatDuration } from '../../run-state/format';
import { type RunState, type StepState, stepVisual, visualLabel } from '../../run-state/run-state';
import type { StepChangesAnswer } from '../../server/api-types';
import type { StepFileChange } from '../../workspace-changes/step-change-recorder';
import { api } from '../api';
import { Badge, bySeverity, FindingItem, Tabs } from './bits';

type DetailTab = 'overview' | 'calls' | 'changes' | 'output';

function MetaRow(props: { label: string; value: string | string[] | null | undefined }) {
  const { value } = props;
  if (value === null || value === undefined || value === '' || (Array.isArray(value) && value.length === 0))
    return null;
  return (
    <>
      <dt>{props.label}</dt>
      <dd>{Array.isArray(value) ? value.join(', ') : value}</dd>
    </>
  );
}

function Claims(props: { step: StepState }) {
  const { claims } = props.step;
  if (!claims) return <p class="muted">No claims.</p>;
  const rows: Array<[string, string]> = [];
  if (claims.filesWritten.length) rows.push(['Files written', claims.filesWritten.join(', ')]);
  if (claims.filesDeleted.length) rows.push(['Files deleted', claims.filesDeleted.join(', ')]);
  if (claims.symbolsAdded.length) {
    rows.push([
      'Symbols added',
      claims.symbolsAdded.map((symbol) => `${symbol.name} (${symbol.file})`).join(', '),
    ]);
  }
  if (claims.commandsPassed.length) {
    rows.push(['Commands passed', claims.commandsPassed.map((command) => command.argv.join(' ')).join('; ')]);
  }
  if (!rows.length) return <p class="muted">No claims.</p>;
  return (
    <dl class="claims">
      {rows.map(([label, value]) => (
        <>
          <dt>{label}</dt>
          <dd>
            <code>{value}</code>
          </dd>
        </>
      ))}
    </dl>
  );
}

function Overview(props: { step: StepState }) {
  const { step } = props;
  // The verifier's record has every check of the latest attempt (passes too); finding-reported
  // events carry only the non-passing ones.
  const verified = step.verification?.findings ?? [];
  const findings = [...(verified.length ? verified : step.findings)].sort(bySeverity);
  return (
    <>
      <dl class="meta">
        <MetaRow label="Id" value={step.id} />
        <MetaRow label="Runs" value={step.runs ? String(step.runs) : null} />
        <MetaRow label="Depends on" value={step.dependsOn} />
        <MetaRow label="Replaces" value={step.replaces} />
        <MetaRow label="Replaced by" value={step.replacedBy} />
        <MetaRow label="Verdict" value={step.verdict ?? step.verification?.verdict ?? null} />
        <MetaRow label="Confidence" value={step.confidence === null ? null : step.confidence.toFixed(2)} />
        <MetaRow
          label="Duration"
          value={
            step.finishedAt !== null && step.startedAt !== null
              ? formatDuration(step.finishedAt - step.startedAt)
              : null
          }
        />
        <MetaRow label="Required tools" value={step.requiredTools} />
      </dl>
      {step.description && step.description !== step.title ? (
        <p class="description">{step.description}</p>
      ) : null}
      {step.error ? <p class="step-error">{step.error}</p> : null}
      <h4>Notes</h4>
      {step.notes ? <pre class="notes">{step.notes}</pre> : <p class="muted">No notes.</p>}
      <h4>Claims</h4>
      <Claims step={step} />
      <h4>
        Findings <span class="count">{findings.length}</span>
      </h4>
      {findings.length ? (
        <ul class="findings">
          {findings.map((finding) => (
            <FindingItem key={`${finding.check}:${finding.message}`} finding={finding} />
          ))}
        </ul>
      ) : (
        <p class="muted">No findings yet.</p>
      )}
    </>
  );
}

function ToolCalls(props: { step: StepState }) {
  const { ledger } = props.step;
  if (!ledger.length) return <p class="muted">No tool calls yet.</p>;
  return (
    <ol class="ledger">
      {ledger.map((call) => (
        <li key={call.callId} class={`call call--${call.status}`}>
          <div class="call-head">
            <Badge kind={call.status}>{call.status}</Badge>
            <code class="call-tool">{call.tool}</code>
            <span class="muted">
              {call.respondedAt !== null
                ? formatDuration(call.respondedAt - call.calledAt)
                : (call.progress ?? 'running…')}
            </span>
          </div>
          <pre class="excerpt excerpt--args">{excerpt(call.args, 600)}</pre>
          {call.status === 'error' ? (
            <pre class="excerpt excerpt--error">{excerpt(call.error, 600)}</pre>
          ) : call.result !== null ? (
            <pre class="excerpt excerpt--result">{excerpt(call.result, 600)}</pre>
          ) : null}
        </li>
      ))}
    </ol>
  );
}

function FileDiff(props: { file: StepFileChange }) {
  const { file } = props;
  return (
    <li class={`file-change file-change--${file.change}`} data-path={file.path}>
      <div class="file-head">
        <Badge kind={file.change}>{file.change}</Badge>
        <code class="file-path">{file.path}</code>
        <span class="diffstat">
          <span class="diffstat-add">+{file.additions}</span>{' '}
          <span class="diffstat-del">−{file.deletions}</span>
        </span>
        <span class={`origin origin--${file.byStep ? 'step' : 'other'}`}>
          {file.byStep ? "by this step's file tools" : 'changed while the step ran'}
        </span>
      </div>
      {file.hunks ? (
        <div class="diff">
          {file.hunks.map((hunk) => {
            let oldLine = hunk.oldStart;
            let newLine = hunk.newStart;
            return (
              <div key={`${hunk.oldStart}:${hunk.newStart}`} class="hunk">
                <div class="hunk-head">{`@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`}</div>
                {hunk.lines.map((line, index) => {
                  const sign = line[0];
                  const kind = sign === '+' ? 'add' : sign === '-' ? 'del' : 'ctx';
                  const left = kind === 'add' ? '' : String(oldLine++);
                  const right = kind === 'del' ? '' : String(newLine++);
                  return (
                    <div key={index} class={`diff-line diff-line--${kind}`}>
                      <span class="ln">{left}</span>
                      <span class="ln">{right}</span>
                      <span class="code">{line.slice(1) || ' '}</span>
                    </div>
                  );
                })}
              </div>
            );
          })}
        </div>
      ) : (
        <p class="muted">
          {file.withoutDiff === 'binary' ? 'Binary file: no text diff.' : 'Too large for a text diff.'}
        </p>
      )}
    </li>
  );
}

function Changes(props: { runId: string; step: StepState; revision: number }) {
  const { runId, step } = props;
  const [answer, setAnswer] = useState<StepChangesAnswer | null>(null);
  const [error, setError] = useState<string | null>(null);
  // Fetched again whenever the step starts or finishes a run.
  useEffect(() => {
    let live = true;
    api.stepChanges(runId, step.id).then(
      (data) => {
        if (!live) return;
        setAnswer(data);
        setError(null);
      },
      (failure: Error) => {
        if (live) setError(failure.message);
      },
    );
    return () => {
      live = false;
    };
  }, [runId, step.id, step.runs, step.finishedAt]);
  if (error) return <p class="step-error">{error}</p>;
  if (!answer) return <p class="muted">Loading…</p>;
  return (
    <div class="changes">
      <p class="muted explain">
        What changed in the workspace between this step's start and the end of its verification (snapshots
        taken by the server). Files its own file tools wrote are marked; steps that ran at the same time share
        the workspace, so their changes can show here too.
      </p>
      {answer.runs.length === 0 ? (
        <p class="muted">
          {step.status === 'in_progress'
            ? 'The step is running; its changes appear when it ends.'
            : 'No run of this step was recorded.'}
        </p>
      ) : (
        [...answer.runs].reverse().map((run) => (
          <section key={run.run} class="change-run" data-run={run.run}>
            <h4>
              Run {run.run} · {run.status} · {run.files.length} file{run.files.length === 1 ? '' : 's'}{' '}
              changed
              {run.concurrentSteps.length ? ` · ran alongside ${run.concurrentSteps.join(', ')}` : ''}
            </h4>
            {run.truncated ? (
              <p class="muted">
                The workspace has more files than a snapshot reads; some changes may be missing.
              </p>
            ) : null}
            {run.files.length ? (
              <ul class="file-changes">
                {run.files.map((file) => (
                  <FileDiff key={file.path} file={file} />
                ))}
              </ul>
            ) : (
              <p class="muted">No file changed.</p>
            )}
          </section>
        ))
      )}
    </div>
  );
}

function Output(props: { step: StepState; state: RunState }) {
  const { step, state } = props;
  const streaming = [...state.openModelCalls.values()].some((call) => call.stepId === step.id);
  return (
    <div class="output">
      <p class="muted explain">
        Model text streamed live while the step runs (not kept in the journal: a reload shows the step's final
        output).
      </p>
      {step.liveText ? (
        <pre class={`live-text${streaming ? ' is-streaming' : ''}`} data-testid="live-text">
          {step.liveText}
        </pre>
      ) : (
        <p class="muted">{streaming ? 'Waiting for the model…' : 'No streamed text in this view.'}</p>
      )}
      <h4>Final output</h4>
      {step.output ? <pre class="notes">{step.output}</pre> : <p class="muted">No output yet.</p>}
    </div>
  );
}

/** The selected step: overview (notes, claims, findings), tool calls, workspace changes, model output. */
export function StepDetail(props: {
  runId: string | null;
  state: RunState;
  stepKey: string | null;
  revision: number;
}) {
  const [tab, setTab] = useState<DetailTab>('overview');
  const step = props.stepKey ? props.state.steps.get(props.stepKey) : undefined;
  if (!step || !props.runId) {
    return (
      <p class="empty">
        {props.state.steps.size
          ? 'Click a step in the plan to see its tool calls, workspace changes, model output and findings.'
          : 'Step details appear here.'}
      </p>
    );
  }
  const key = stepVisual(step);
  return (
    <>
      <div class="detail-head">
        <h3>{step.title}</h3>
        <Badge kind={key}>{visualLabel(key)}</Badge>
      </div>
      <Tabs<DetailTab>
        label="Step detail"
        selected={tab}
        onSelect={setTab}
        tabs={[
          { id: 'overview', label: 'Overview' },
          {
            id: 'calls',
            label: (
              <>
                Tool calls <span class="count">{step.ledger.length}</span>
              </>
            ),
          },
          { id: 'changes', label: 'Changes' },
          { id: 'output', label: 'Model output' },
        ]}
      />
      <div class="tab-body" data-tab-body={tab}>
        {tab === 'overview' ? <Overview step={step} /> : null}
        {tab === 'calls' ? <ToolCalls step={step} /> : null}
        {tab === 'changes' ? <Changes runId={props.runId} step={step} revision={props.revision} /> : null}
        {tab === 'output' ? <Output step={step} state={props.state} /> : null}
      </div>
    </>
  );
}
