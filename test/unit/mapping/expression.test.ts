import jsonata from 'jsonata';
import { describe, expect, it } from 'vitest';
import { compileExpression, compileFast } from '../../../src/mapping/expression.js';

const EXPRESSIONS = [
  "account ? account & ' – ' & product : product",
  "a & '-' & b",
  'a ? b',
  'a ? b : c',
  'a.b & c',
  "'literal'",
  "a ? 'yes' : 'no'",
  "(a ? b : c) & 'x'",
];

const VALUES: unknown[] = [undefined, null, '', 'x', 'two words', 0, 1, -2.5, 1e21, true, false, [], ['p'], ['p', 'q'], {}, { b: 'nested' }];

/** Every input made of the values above in a, b, c (absent when undefined). */
function* inputs(): Generator<Record<string, unknown>> {
  for (const a of VALUES) {
    for (const b of VALUES) {
      for (const c of ['', 'c', 3, null, undefined]) {
        const input: Record<string, unknown> = {};
        if (a !== undefined) input.a = a;
        if (b !== undefined) input.b = b;
        if (c !== undefined) input.c = c;
        yield input;
      }
    }
  }
}

describe('the synchronous subset of JSONata', () => {
  it('gives exactly what JSONata gives, for every value it handles itself', async () => {
    let fastAnswers = 0;
    for (const source of EXPRESSIONS) {
      const expression = compileExpression(source);
      const reference = jsonata(source);
      for (const input of inputs()) {
        const got = expression.evaluate(input);
        if (!(got instanceof Promise)) fastAnswers++;
        const want: unknown = await reference.evaluate(input);
        expect({ source, input, value: await got }).toEqual({ source, input, value: want });
      }
    }
    // The subset answered most of these itself (else this test would not test it).
    expect(fastAnswers).toBeGreaterThan(1000);
  });

  it('answers without a promise for plain strings, and leaves arrays, objects and numbers to concatenate to JSONata', () => {
    const expression = compileExpression("account ? account & ' – ' & product : product");
    expect(expression.evaluate({ account: 'Acme', product: 'GTX' })).toBe('Acme – GTX');
    expect(expression.evaluate({ account: '', product: 'GTX' })).toBe('GTX');
    expect(expression.evaluate({ product: 'GTX' })).toBe('GTX');
    expect(expression.evaluate({ account: 7, product: 'GTX' })).toBeInstanceOf(Promise);
    expect(expression.evaluate({ account: ['a'], product: 'GTX' })).toBeInstanceOf(Promise);
    expect(expression.evaluate(['not', 'a', 'record'])).toBeInstanceOf(Promise);
  });

  it('compiles nothing fast beyond paths, strings, & and conditions', () => {
    for (const source of ['a + 1', '$uppercase(a)', 'a[0]', 'a = "x"', '$', 'a.b[c = 1]', '{"k": a}', 'a ? b : c.d[0]']) {
      expect(compileFast(jsonata(source).ast()), source).toBeUndefined();
    }
  });
});
