/**
 * Everything a command needs once it runs: the kernel, the plugins and their storage. Commands
 * import this module dynamically inside `run`, so `--help` and argument errors never load it.
 */
export {
  commandLogger,
  loadCliConfig,
  requireHubDatabase,
  requireMultitenancy,
  resolveTenantOption,
  withHub,
  withTenant,
  type TenantContext,
} from './context.ts';
export { CLI_CONTEXT } from '../kernel/storage/context.ts';
export { toUserRecord } from '../kernel/identity/users.ts';
export { toTokenRecord } from '../kernel/identity/tokens.ts';
export { listUsers, MAX_TOKEN_DAYS } from '../plugins/accounts/index.ts';
export { toTenantRecord } from '../kernel/identity/tenants.ts';
export { systemClock } from '../kernel/clock.ts';
export {
  configuredIssuer,
  createBlocksService,
  createLinkingService,
  DEFAULT_LINK_HOURS,
  linkCodeUrl,
  MAX_LINK_HOURS,
  ssoLinks,
  toBlockRecord,
  toLinkRecord,
} from '../plugins/sso/index.ts';
export {
  HISTORY_KIND_NAMES,
  purgeRecordHistory,
  runResultUsage,
  type HistoryKind,
  type RunResultsConfig,
  type RunResultUsage,
} from '../plugins/entities/index.ts';
export {
  auditPage,
  keptSince,
  toAuditEventRecord,
  type AuditEventRecord,
} from '../plugins/audit/index.ts';
