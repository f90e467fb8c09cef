import { describe, expect, it } from 'vitest';
import { literalRedirectOf } from './literal-redirect';

describe('literalRedirectOf', () => {
  it('reads a shell writing a literal to one file', () => {
    expect(literalRedirectOf(['sh', '-c', 'echo s >> cmd.log'])).toEqual({
      path: 'cmd.log',
      text: 's\n',
      append: true,
    });
    expect(literalRedirectOf(['bash', '-c', 'echo \'two  words\' "and more" > out/a.txt'])).toEqual({
      path: 'out/a.txt',
      text: 'two  words and more\n',
      append: false,
    });
    expect(literalRedirectOf(['sh', '-c', 'echo -n done>>log.txt'])).toEqual({
      path: 'log.txt',
      text: 'done',
      append: true,
    });
    expect(literalRedirectOf(['sh', '-c', "printf 'a b' > out.txt"])).toEqual({
      path: 'out.txt',
      text: 'a b',
      append: false,
    });
  });

  it('is undefined for anything whose effect its text does not fix', () => {
    for (const script of [
      'echo $HOME >> log.txt',
      'echo `date` > log.txt',
      'echo "$USER" > log.txt',
      'echo a\\nb > log.txt',
      'echo * > log.txt',
      'echo a >> log.txt; rm -rf x',
      'echo a && echo b > log.txt',
      'echo a | tee log.txt',
      "printf '%s' x > log.txt",
      'echo a > $FILE',
      'echo a > ~/log.txt',
      'cat a > b',
      'echo -e a > log.txt',
      'echo a >> log.txt >> other.txt',
      'echo a',
    ]) {
      expect(literalRedirectOf(['sh', '-c', script]), script).toBeUndefined();
    }
    expect(literalRedirectOf(['node', '-c', 'echo a > b'])).toBeUndefined();
    expect(literalRedirectOf(['sh', '-e', '-c', 'echo a > b'])).toBeUndefined();
    expect(literalRedirectOf('sh -c "echo a > b"')).toBeUndefined();
  });
});
