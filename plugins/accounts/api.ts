/** API docs of the accounts routes; request bodies come from ./schemas.ts through the validators. */
import { z } from 'zod';
import type { RouteDocs } from '../../kernel/http/openapi.ts';
import { perEntityList } from '../../kernel/identity/access.ts';
import { hubPresentationSchema } from '../avatars/index.ts';

const accessList = z.array(z.string()).describe('Ids the user may use, or `["*"]` for all');

export const userRecordSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    role: z.enum(['user', 'admin']),
    avatarInitials: z.string(),
    avatarColor: z.string(),
    avatarImageUrl: z.string().optional(),
    ...perEntityList(() => accessList),
    llmAccess: z.boolean(),
    llmModels: accessList,
    llmMonthlyTokenLimit: z.number().int().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'User' });

export const tokenRecordSchema = z
  .object({
    id: z.string(),
    userId: z.string().nullable(),
    name: z.string(),
    tokenPrefix: z.string(),
    createdAt: z.string(),
    lastUsedAt: z.string().nullable(),
    revokedAt: z.string().nullable(),
    expiresAt: z
      .string()
      .nullable()
      .describe('When the token stops working by itself (ISO 8601); null: never'),
  })
  .meta({ id: 'Token' });

export const tenantRecordSchema = z
  .object({
    id: z.string(),
    name: z.string().describe("The tenant's hub name"),
    avatarInitials: z.string(),
    avatarColor: z.string(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Tenant' });

const MULTITENANCY_ROUTE =
  "Only administrators of the default tenant (403 for another tenant's); 404 while `multitenancy.enabled` is false. Created and deleted tenants are audited in the default tenant's log.";

/** A token's secret, shown once. */
const secret = z.string().describe('The token secret (`hbk_…`); shown only in this response');

export const accountsApi: RouteDocs = {
  'GET /health': {
    summary: 'Liveness and version',
    responses: { 200: z.object({ status: z.literal('ok'), version: z.string() }) },
  },
  'GET /auth/session': {
    summary: 'The calling token, its user, what it may do, and the hub',
    responses: {
      200: z.object({
        user: userRecordSchema.pick({
          id: true,
          name: true,
          role: true,
          avatarInitials: true,
          avatarColor: true,
          avatarImageUrl: true,
        }),
        token: z.object({ id: z.string(), prefix: z.string() }),
        capabilities: z.object({
          dataApi: z.boolean(),
          managementApi: z.boolean(),
          llm: z.boolean(),
          communication: z.boolean(),
          discussionE2ee: z.boolean(),
        }),
        tenantId: z.string(),
        hub: hubPresentationSchema,
      }),
    },
  },
  'GET /admin/users': {
    summary: 'List users, with warnings about access-list ids that no longer exist',
    responses: {
      200: z.object({
        users: z.array(
          userRecordSchema.extend({
            identityProvider: z
              .object({ issuer: z.string(), subject: z.string() })
              .optional()
              .describe('The single sign-on provider the user is linked to, if any'),
            warnings: z.array(z.string()),
          }),
        ),
      }),
      304: null,
    },
  },
  'POST /admin/users': {
    summary: 'Create a user and its first token',
    responses: { 201: z.object({ user: userRecordSchema, token: tokenRecordSchema, secret }) },
  },
  'PUT /admin/users/:id': {
    summary: 'Update a user (fields given only; `imageDataUrl` sets or removes the avatar image)',
    responses: { 200: userRecordSchema },
  },
  'DELETE /admin/users/:id': {
    summary: 'Delete a user, its tokens and what plugins keep about it',
    responses: { 204: null },
  },
  'POST /admin/users/:id/tokens': {
    summary: 'Issue another token for a user',
    responses: { 201: z.object({ token: tokenRecordSchema, secret }) },
  },
  'GET /admin/tokens': {
    summary: "List tokens (never their secrets), newest first; `userId` keeps one user's",
    description:
      'Every token without `limit`; with it, pages of that many and `nextCursor` while more follow.',
    responses: {
      200: z.object({ tokens: z.array(tokenRecordSchema), nextCursor: z.string().optional() }),
    },
  },
  'POST /admin/tokens/:id/revoke': {
    summary: 'Revoke a token: it is refused from then on, and stays listed with `revokedAt`',
    description: '409 when it is revoked already; 403 for a token of the internal system account.',
    errors: [404, 409],
    responses: { 200: z.object({ token: tokenRecordSchema }) },
  },
  'DELETE /admin/tokens/:id': {
    summary: 'Delete a token (it is refused from then on, and no longer listed)',
    errors: [404],
    responses: { 204: null },
  },
  'GET /admin/tenants': {
    summary: 'List tenants (the default tenant `__default__` always exists)',
    description: MULTITENANCY_ROUTE,
    errors: [404],
    responses: { 200: z.object({ tenants: z.array(tenantRecordSchema) }) },
  },
  'POST /admin/tenants': {
    summary: 'Create a tenant, and with `adminName` its first administrator',
    description: `${MULTITENANCY_ROUTE} \`id\`: letters, digits, underscores and hyphens, at most 64; 409 when taken. \`name\` is the tenant's hub name. With \`adminName\` the answer carries that administrator and their token's secret, shown only here; if the account cannot be made, the tenant is not made either.`,
    errors: [404, 409],
    responses: {
      201: z.object({
        tenant: tenantRecordSchema,
        admin: z
          .object({ user: userRecordSchema, token: tokenRecordSchema, secret })
          .optional()
          .describe('The first administrator, when `adminName` was given'),
      }),
    },
  },
  'DELETE /admin/tenants/:id': {
    summary: 'Delete a tenant and every row it owns (not the default tenant)',
    description: MULTITENANCY_ROUTE,
    errors: [404],
    responses: { 204: null },
  },
};
