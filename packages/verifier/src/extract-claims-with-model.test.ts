import { ModelError } from '@closedloop/model';
import { ScriptedModel } from '@closedloop/model/testing';
import { describe, expect, it } from 'vitest';
import { claimExtractionSystemPrompt, extractClaimsWithModel } from './extract-claims-with-model';

describe('extractClaimsWithModel (factored claim extraction)', () => {
  it('asks a separate call that sees only the text and keeps the claims whose quotes it contains', async () => {
    const text = '[SUCCESS]: The parser now lives in lib/parse.js; four specs are green.';
    const model = new ScriptedModel({
      turns: [
        {
          text: JSON.stringify({
            claims: [
              { kind: 'file-created', file: 'lib/parse.js', quote: 'The parser now lives in lib/parse.js' },
              { kind: 'tests-passed', count: 4, quote: 'four specs are green' },
              { kind: 'file-modified', file: 'src/invented.js', quote: 'words that are not in the text' },
              { kind: 'file-modified', file: 'not a path', quote: 'The parser' },
            ],
          }),
        },
      ],
    });
    const claims = await extractClaimsWithModel(model, text);
    expect(claims.map(({ text: _text, ...claim }) => claim)).toEqual([
      { kind: 'file-written', file: 'lib/parse.js', action: 'created', source: 'model' },
      { kind: 'check-passed', check: 'test', tests: { count: 4, all: false }, source: 'model' },
    ]);
    const request = model.requests[0];
    expect(request?.messages[0]?.content).toBe(claimExtractionSystemPrompt);
    expect(JSON.stringify(request?.messages)).toContain(text);
    expect(request?.tools).toBeUndefined();
  });

  it('lists git tags created and deleted', async () => {
    const text = '[SUCCESS]: Release v1.2.0 is tagged; the old v1.1.0-rc tag is gone.';
    const model = new ScriptedModel({
      turns: [
        {
          text: JSON.stringify({
            claims: [
              { kind: 'git-tag-created', name: 'v1.2.0', quote: 'Release v1.2.0 is tagged' },
              { kind: 'git-tag-deleted', name: 'v1.1.0-rc', quote: 'the old v1.1.0-rc tag is gone' },
            ],
          }),
        },
      ],
    });
    const claims = await extractClaimsWithModel(model, text);
    expect(claims.map(({ text: _text, ...claim }) => claim)).toEqual([
      { kind: 'git-tag', name: 'v1.2.0', action: 'create', source: 'model' },
      { kind: 'git-tag', name: 'v1.1.0-rc', action: 'delete', source: 'model' },
    ]);
  });

  it('returns no claims when the model fails or the text is empty', async () => {
    const failing = new ScriptedModel({
      turns: [{ error: new ModelError({ code: 'invalid-response', message: 'x', isRetryable: false }) }],
    });
    expect(await extractClaimsWithModel(failing, 'created a.ts')).toEqual([]);
    expect(await extractClaimsWithModel(new ScriptedModel(), '  ')).toEqual([]);
  });
});
