/** The identity service handed to plugins: users, tokens, tenants and access-list resolvers. */
import type { ReadCache } from '../cache.ts';
import type { AuditSink } from '../audit.ts';
import type { Clock } from '../clock.ts';
import type { StorageDriver } from '../storage/contract.ts';
import type { Table } from '../storage/table.ts';
import { createAccessRegistry, type AccessRegistry } from './access.ts';
import { createTenantsService, type TenantsService } from './tenants.ts';
import { createTokensService, type TokensService } from './tokens.ts';
import { createUsersService, type UsersService } from './users.ts';

export interface Identity {
  users: UsersService;
  tokens: TokensService;
  tenants: TenantsService;
  access: AccessRegistry;
}

export function createIdentity(options: {
  driver: () => StorageDriver;
  clock: Clock;
  tables: () => readonly Table[];
  cache?: ReadCache;
  audit?: AuditSink;
}): Identity {
  const access = createAccessRegistry();
  const tokens = createTokensService({
    clock: options.clock,
    ...(options.cache ? { cache: options.cache } : {}),
    ...(options.audit ? { audit: options.audit } : {}),
  });
  return {
    access,
    // A deleted user's tokens stop working: listeners of `tokens.onRevoked` hear of it too.
    users: createUsersService({
      access,
      clock: options.clock,
      onDeleted: tokens.announceRevoked,
      ...(options.audit ? { audit: options.audit } : {}),
    }),
    tokens,
    tenants: createTenantsService(options),
  };
}
