/** Reading a server-sent-events body in tests, as a client would, chunk by chunk. */

/** Reads an SSE body chunk by chunk; `until` waits for text matching a pattern. */
export function sseReader(response: Response) {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let done = false;
  // A read that lost a race against the timeout is kept, so its chunk is never dropped.
  let pending: Promise<ReadableStreamReadResult<Uint8Array>> | null = null;
  return {
    get text() {
      return buffer;
    },
    get done() {
      return done;
    },
    async until(pattern: RegExp | string, timeoutMs = 3000): Promise<string> {
      const deadline = Date.now() + timeoutMs;
      const matches = () =>
        typeof pattern === 'string' ? buffer.includes(pattern) : pattern.test(buffer);
      while (!matches()) {
        if (done) throw new Error(`Stream ended before ${pattern}; got ${JSON.stringify(buffer)}`);
        const remaining = deadline - Date.now();
        if (remaining <= 0)
          throw new Error(`Timed out waiting for ${pattern}; got ${JSON.stringify(buffer)}`);
        let timer: ReturnType<typeof setTimeout> | undefined;
        const timeout = new Promise<'timeout'>(
          (resolve) => (timer = setTimeout(() => resolve('timeout'), remaining)),
        );
        pending ??= reader.read();
        const chunk = await Promise.race([pending, timeout]);
        clearTimeout(timer);
        if (chunk === 'timeout') continue;
        pending = null;
        if (chunk.done) done = true;
        else buffer += decoder.decode(chunk.value, { stream: true });
      }
      return buffer;
    },
    /** The `data:` frames received so far, parsed. */
    frames(): any[] {
      return [...buffer.matchAll(/^data: (.*)\n\n/gm)].map((m) => JSON.parse(m[1]!));
    },
    cancel: () => reader.cancel(),
  };
}
