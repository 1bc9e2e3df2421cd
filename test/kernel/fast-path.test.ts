/**
 * The pieces of a request's fixed cost that were made cheaper (issue 37), each checked to keep
 * what it did before: a refusal's error, a token's hash.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { HttpError, notFound, unauthorized } from '../../kernel/errors.ts';
import { sha256Hex } from '../../kernel/identity/secrets.ts';

describe('HttpError', () => {
  it('carries no stack frames for a 4xx refusal, only its name and message', () => {
    const error = unauthorized();
    expect(error).toBeInstanceOf(Error);
    expect(error.stack).toBe('HttpError: Unauthorized');
    expect(notFound().stack).toBe('HttpError: Not Found');
  });

  it('keeps its stack for a 5xx, and leaves the runtime stack limit as it was', () => {
    const limit = Error.stackTraceLimit;
    const error = new HttpError(500, 'boom');
    expect(error.stack).toMatch(/^HttpError: boom\n\s+at /);
    new HttpError(404, 'gone');
    expect(Error.stackTraceLimit).toBe(limit);
    expect(new Error('plain').stack).toMatch(/\n\s+at /);
  });
});

describe('sha256Hex', () => {
  it('is the lower-case hex sha256 of the UTF-8 text', () => {
    for (const text of ['', 'hbk_abc', 'tête-à-tête ✓'])
      expect(sha256Hex(text)).toBe(createHash('sha256').update(text, 'utf8').digest('hex'));
    expect(sha256Hex('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
  });
});
