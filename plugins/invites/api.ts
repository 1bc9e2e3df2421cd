/** API docs of the invitation routes; the bodies come from the routes' validators. */
import { z } from 'zod';
import type { RouteDocs } from '../../kernel/http/openapi.ts';
import { perEntityList } from '../../kernel/identity/access.ts';
import { tokenRecordSchema, userRecordSchema } from '../accounts/index.ts';

const invitationSchema = z
  .object({
    id: z.string(),
    userId: z.string(),
    codePrefix: z.string(),
    expiresAt: z.string(),
    redeemedAt: z.string().nullable(),
    revokedAt: z.string().nullable(),
    createdAt: z.string(),
    status: z.enum(['pending', 'redeemed', 'revoked', 'expired']),
  })
  .meta({ id: 'Invitation' });

const issued = z.object({
  user: userRecordSchema,
  invitation: invitationSchema,
  secret: z.string().describe('The invitation secret (`hbi_…`); shown only in this response'),
  link: z
    .string()
    .describe('The join link to hand the user (as the CLI prints it), on `server.publicUrl`'),
});

const THROTTLED =
  'Failed attempts are counted per client address with the bearer-auth policy (429 when blocked; 503 when the throttle store is unreachable).';

export const invitesApi: RouteDocs = {
  'GET /join': {
    summary: 'Landing page of an invite link (HTML; the secret stays in the URL fragment)',
    description:
      "The page's script reads the secret from the fragment and asks this hub's `POST /auth/invitations/preview` what it is for; it shows only that answer (never the query's name, role, access or expiry), and warns when `url` is not this page's origin. The query is checked and repeated in the `harborclient://team-hub/join` deep link.",
    responses: {
      200: {
        contentType: 'text/html',
        description: 'The page, also for a malformed link or an unusable code',
        schema: { type: 'string' },
      },
    },
    query: z.object({
      url: z.string().optional(),
      name: z.string().optional(),
      role: z.string().optional(),
      exp: z.string().optional(),
      hub: z.string().optional(),
      access: z.string().optional(),
      tenant: z
        .string()
        .optional()
        .describe(
          "The invitation's tenant when it is not the default one: the page asks that tenant (as `X-Hub-Tenant`); without multitenancy it makes the link invalid",
        ),
    }),
  },
  'POST /auth/invitations/preview': {
    summary: 'Who an invitation secret is for, without spending it',
    description: THROTTLED,
    errors: [410, 429],
    responses: {
      200: z.object({
        user: userRecordSchema.pick({
          name: true,
          role: true,
          ...perEntityList(() => true as const),
          llmAccess: true,
          llmModels: true,
        }),
        expiresAt: z.string(),
        hubName: z
          .string()
          .describe(
            "The display name of the invitation's tenant (the `/join` page shows it only from here, to holders of a valid code)",
          ),
      }),
    },
  },
  'POST /auth/invitations/redeem': {
    summary: 'Spend an invitation secret for an API token',
    description: THROTTLED,
    errors: [410, 429],
    responses: {
      201: z.object({
        token: tokenRecordSchema,
        secret: z.string().describe('The token secret (`hbk_…`); shown only in this response'),
      }),
    },
  },
  'POST /admin/invited-users': {
    summary: 'Create a user with an invitation instead of a token',
    responses: { 201: issued },
  },
  'POST /admin/users/:id/invitations': {
    summary: 'Issue a new invitation for an existing user',
    description:
      'A user an administrator blocked from single sign-on (`POST /admin/sso/blocks`) gets none: 409, until the block is lifted.',
    errors: [404, 409],
    responses: { 201: issued },
  },
  'GET /admin/invitations': {
    summary: 'List invitations',
    responses: { 200: z.object({ invitations: z.array(invitationSchema) }) },
  },
  'DELETE /admin/invitations/:id': {
    summary: 'Revoke a pending invitation',
    responses: { 204: null },
  },
};
