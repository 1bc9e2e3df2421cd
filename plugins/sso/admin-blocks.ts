/** Admin routes of blocked people (blocks.ts): list, block by user or subject, lift. */
import { z } from 'zod';
import { badRequest, notFound } from '../../kernel/errors.ts';
import { pathId } from '../../kernel/http/params.ts';
import { jsonBody } from '../../kernel/http/validate.ts';
import { createPluginApp } from '../../kernel/plugin.ts';
import { toBlockRecord, type BlocksService } from './blocks.ts';

const NO_BLOCK = 'Block not found.';

/** An optional trimmed, non-empty string of at most `max` characters. */
export const optionalText = (max: number) =>
  z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(max, `must be at most ${max} characters`)
    .optional();

/** Whom to block: `userId` (a linked user), or `subject` with an optional `issuer`. */
export const blockBody = z
  .object({
    userId: optionalText(128).describe('A user linked to the identity provider'),
    subject: optionalText(255).describe("The provider's subject (`sub`) of the person"),
    issuer: optionalText(255).describe('With `subject`: the issuer; default: `sso.oidc.issuer`'),
  })
  .refine((body) => (body.userId === undefined) !== (body.subject === undefined), {
    message: 'give userId or subject (exactly one)',
  })
  .refine((body) => body.issuer === undefined || body.subject !== undefined, {
    path: ['issuer'],
    message: 'only with subject',
  });

/** `issuer()`: the configured provider's issuer, or null while single sign-on is off. */
export function adminBlockRoutes(blocks: BlocksService, issuer: () => string | null) {
  return createPluginApp()
    .get('/admin/sso/blocks', async (c) => {
      const rows = await blocks.list(c.get('store'));
      return c.json({ blocks: rows.map(toBlockRecord) });
    })
    .post('/admin/sso/blocks', jsonBody(blockBody), async (c) => {
      const body = c.req.valid('json');
      let target: Parameters<BlocksService['block']>[1];
      if (body.userId !== undefined) target = { userId: body.userId };
      else {
        const from = body.issuer ?? issuer();
        if (!from) throw badRequest('issuer: required while single sign-on is off');
        target = { subject: body.subject!, issuer: from };
      }
      const row = await blocks.block(c.get('store'), target);
      return c.json(toBlockRecord(row), 201);
    })
    .delete('/admin/sso/blocks/:id', async (c) => {
      const removed = await blocks.unblock(c.get('store'), pathId(c, 'id', NO_BLOCK));
      if (!removed) throw notFound(NO_BLOCK);
      return c.body(null, 204);
    });
}
