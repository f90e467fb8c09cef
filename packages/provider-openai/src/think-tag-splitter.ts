const open = '<think>';
const close = '</think>';

/**
 * Splits reasoning that a server inlines at the start of the answer as `<think>…</think>`
 * (DeepSeek-R1 and Qwen3 served by Together, older Ollama and LM Studio builds) from the answer,
 * across stream deltas: `push(delta)` returns what of it is answer text and what is reasoning;
 * `flush()` returns what was held back at the end. Only a block at the very start of the answer
 * counts; `<think>` anywhere else is text.
 */
export class ThinkTagSplitter {
  #state: 'start' | 'think' | 'after' | 'text' = 'start';
  #held = '';

  push(delta: string): { text: string; reasoning: string } {
    let input = this.#held + delta;
    this.#held = '';
    let text = '';
    let reasoning = '';
    while (input !== '') {
      if (this.#state === 'text') {
        text += input;
        break;
      }
      if (this.#state === 'after') {
        // The blank lines between the block and the answer belong to neither.
        input = input.replace(/^\s+/, '');
        if (input !== '') this.#state = 'text';
        continue;
      }
      if (this.#state === 'start') {
        const trimmed = input.trimStart();
        if (trimmed === '') {
          this.#held = input;
          break;
        }
        if (trimmed.startsWith(open)) {
          this.#state = 'think';
          input = trimmed.slice(open.length);
          continue;
        }
        if (open.startsWith(trimmed)) {
          this.#held = input; // maybe the start of `<think>`
          break;
        }
        this.#state = 'text';
        continue;
      }
      const end = input.indexOf(close);
      if (end !== -1) {
        reasoning += input.slice(0, end);
        input = input.slice(end + close.length);
        this.#state = 'after';
        continue;
      }
      // Hold back a possible partial `</think>` at the end.
      let keep = 0;
      for (let length = Math.min(close.length - 1, input.length); length > 0; length--) {
        if (close.startsWith(input.slice(-length))) {
          keep = length;
          break;
        }
      }
      reasoning += input.slice(0, input.length - keep);
      this.#held = input.slice(input.length - keep);
      break;
    }
    return { text, reasoning };
  }

  flush(): { text: string; reasoning: string } {
    const held = this.#held;
    this.#held = '';
    return this.#state === 'think' ? { text: '', reasoning: held } : { text: held, reasoning: '' };
  }
}

/** `<think>…</think>` at the start of a whole answer, split off (see {@link ThinkTagSplitter}). */
export function splitThinkTags(content: string): { text: string; reasoning: string } {
  const splitter = new ThinkTagSplitter();
  const first = splitter.push(content);
  const rest = splitter.flush();
  return { text: first.text + rest.text, reasoning: first.reasoning + rest.reasoning };
}
