/**
 * `POST /llm/chat/stream`: one chat step as Server-Sent Events (inventory B.6). Every check of the
 * plain step runs before the headers, so refusals keep their HTTP status; after that, failures are
 * frames. Each frame is one `data:` line carrying `v: 1`, `turnId` and `stepIndex`. The step is
 * counted only once it finished; a client that goes away aborts the upstream call and is not metered.
 * Hub shutdown (the plugin's `signal`) aborts the upstream call too and ends the stream with a
 * `turn.error` frame, so graceful shutdown never waits for a long answer.
 */
import type { Hono } from 'hono';
import type { z } from 'zod';
import type { Logger } from '../../kernel/log.ts';
import type { KernelEnv } from '../../kernel/plugin.ts';
import { prepareStep, requireLlm, type LlmDeps } from './routes.ts';
import { chatStreamBody } from './schemas.ts';
import { streamStep, upstreamFailure } from './upstream.ts';
import { jsonBody } from '../../kernel/http/validate.ts';

/** The interval the desktop client expects between comments on an idle stream. */
export const HEARTBEAT_MS = 30_000;

const SSE_HEADERS = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache, no-transform',
  Connection: 'keep-alive',
  'X-Accel-Buffering': 'no',
};

/** Mounts the streaming route. */
export function llmStreamRoutes(
  app: Hono<KernelEnv>,
  deps: LlmDeps,
  options: { heartbeatMs?: number; shutdown?: AbortSignal } = {},
): void {
  const shutdown = options.shutdown;
  app.post('/llm/chat/stream', requireLlm(deps), jsonBody(chatStreamBody), async (c) => {
    const body = c.req.valid('json');
    const step = await prepareStep(deps, c, body);
    const log = c.get('log');
    const upstream = new AbortController();
    const clientSignal = c.req.raw.signal;
    const abort = () => upstream.abort();
    clientSignal.addEventListener('abort', abort, { once: true });
    let shuttingDown = false;
    const onShutdown = () => {
      shuttingDown = true;
      upstream.abort();
    };
    shutdown?.addEventListener('abort', onShutdown, { once: true });
    if (shutdown?.aborted) onShutdown();
    const encoder = new TextEncoder();
    // False once the stream was closed by us or cancelled by the client: nothing may be enqueued
    // after that (enqueue would throw ERR_INVALID_STATE).
    let open = true;

    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        const write = (text: string) => {
          if (!open) return;
          try {
            controller.enqueue(encoder.encode(text));
          } catch {
            // The client went away between the check and the write.
            open = false;
          }
        };
        const frame = (type: string, fields: Record<string, unknown> = {}) =>
          write(
            `data: ${JSON.stringify({ v: 1, type, turnId: body.turnId, stepIndex: body.stepIndex, ...fields })}\n\n`,
          );
        const heartbeat = setInterval(
          () => write(': heartbeat\n\n'),
          options.heartbeatMs ?? HEARTBEAT_MS,
        );

        const run = () =>
          runStep(
            { deps, step, body, upstream, log, shuttingDown: () => shuttingDown },
            write,
            frame,
          );

        run()
          .catch((error: unknown) => log.error('LLM chat stream failed', { error }))
          .finally(async () => {
            clearInterval(heartbeat);
            clientSignal.removeEventListener('abort', abort);
            shutdown?.removeEventListener('abort', onShutdown);
            await step.admission.release().catch(() => undefined);
            if (!open) return;
            open = false;
            try {
              controller.close();
            } catch {
              // The client cancelled the stream already.
            }
          })
          .catch((error: unknown) => log.error('LLM chat stream failed to close', { error }));
      },
      cancel() {
        open = false;
        upstream.abort();
      },
    });
    return new Response(stream, { status: 200, headers: SSE_HEADERS });
  });
}

type Frame = (type: string, fields?: Record<string, unknown>) => void;

/** What one streamed step needs: the prepared step, its body, the upstream call's abort. */
interface StepRun {
  deps: LlmDeps;
  step: Awaited<ReturnType<typeof prepareStep>>;
  body: z.output<typeof chatStreamBody>;
  upstream: AbortController;
  log: Logger;
  shuttingDown: () => boolean;
}

/** The step told as frames: its start, the text as it comes, the tool calls and its end, or why it failed. */
async function runStep(run: StepRun, write: (text: string) => void, frame: Frame): Promise<void> {
  const { body, step, upstream, log } = run;
  write(': connected\n\n');
  frame('step.start');
  let answer;
  try {
    const client = run.deps.clients.get(step.section, step.model.provider);
    answer = await streamStep(client, body, upstream.signal, (chunk) =>
      frame('delta.text', { chunk }),
    );
  } catch (error) {
    if (run.shuttingDown())
      frame('turn.error', { message: 'The hub is shutting down; try again shortly.' });
    else if (upstream.signal.aborted) frame('turn.cancelled');
    else
      frame('turn.error', {
        message: upstreamFailure(error, step.model.provider, step.section).message,
      });
    return;
  }
  try {
    // Counted before the last frame: a client that saw step.end was billed for it.
    await step.count(answer, true);
  } catch (error) {
    log.error('Could not record LLM usage', { error });
    frame('turn.error', { message: 'The hub chat step failed.' });
    return;
  }
  for (const call of answer.toolCalls)
    frame('tool.call', {
      callId: call.id,
      name: call.name,
      owner: 'harbor',
      arguments: call.arguments,
    });
  frame('step.end', {
    content: answer.content,
    toolCalls: answer.toolCalls,
    usage: answer.usage,
  });
}
