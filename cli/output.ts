/**
 * Printing: readable blocks for people, JSON for scripts. Only results go to stdout; logs and
 * errors go to stderr, so `--json` output can be piped as it is.
 */
import type { TenantRow } from '../kernel/identity/tables.ts';
import type { TokenRecord } from '../kernel/identity/tokens.ts';
import type { UserRecord } from '../kernel/identity/users.ts';

/** Writes lines to stdout. */
export function print(...lines: string[]): void {
  process.stdout.write(lines.map((line) => `${line}\n`).join(''));
}

/** Writes one JSON document to stdout. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** `label  value` lines with the values aligned, indented by two spaces. */
export function block(entries: readonly (readonly [string, string])[]): string[] {
  const width = Math.max(...entries.map(([label]) => label.length)) + 2;
  return entries.map(([label, value]) => `  ${`${label}:`.padEnd(width)}${value}`);
}

const list = (ids: readonly string[]) => (ids.length === 0 ? '-' : ids.join(', '));
const orDash = (value: string | null) => value ?? '-';

/** A user as a block; `warnings` are stale access-list ids. */
export function userBlock(user: UserRecord, warnings: readonly string[] = []): string[] {
  return [
    `${user.name} (${user.id})`,
    ...block([
      ['role', user.role],
      ['collections', user.role === 'admin' ? 'all (admin)' : list(user.collectionAccess)],
      ['environments', user.role === 'admin' ? 'all (admin)' : list(user.environmentAccess)],
      ['snippets', user.role === 'admin' ? 'all (admin)' : list(user.snippetAccess)],
      ['live servers', user.role === 'admin' ? 'all (admin)' : list(user.liveServerAccess)],
      ['live pages', user.role === 'admin' ? 'all (admin)' : list(user.livePageAccess)],
      ['llm access', user.llmAccess ? 'enabled' : 'disabled'],
      ['llm models', list(user.llmModels)],
      ['llm monthly tokens', user.llmMonthlyTokenLimit === null ? 'unlimited' : String(user.llmMonthlyTokenLimit)],
      ['avatar', `${user.avatarInitials} ${user.avatarColor}`],
      ['created', user.createdAt],
      ['updated', user.updatedAt],
    ]),
    ...warnings.map((warning) => `  warning: ${warning}`),
  ];
}

/** An API token as a block (never the secret). */
export function tokenBlock(token: TokenRecord): string[] {
  return [
    `${token.name} (${token.id})`,
    ...block([
      ['user', orDash(token.userId)],
      ['prefix', token.tokenPrefix],
      ['created', token.createdAt],
      ['last used', orDash(token.lastUsedAt)],
      ['revoked', orDash(token.revokedAt)],
    ]),
  ];
}

/** The tenant fields the CLI shows and prints as JSON. */
export function toTenantRecord(row: TenantRow) {
  return {
    id: row.id,
    name: row.name,
    avatarInitials: row.avatarInitials,
    avatarColor: row.avatarColor,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

export function tenantBlock(tenant: TenantRow): string[] {
  return [`${tenant.name} (${tenant.id})`, ...block([['created', tenant.createdAt], ['updated', tenant.updatedAt]])];
}

/** Blocks separated by blank lines. */
export function printBlocks(blocks: readonly string[][]): void {
  print(...blocks.flatMap((lines, index) => (index === 0 ? lines : ['', ...lines])));
}

/** The one time a secret is shown: said plainly, with the secret alone on its line. */
export function secretLines(secret: string): string[] {
  return ['Store this token now; it will not be shown again:', secret];
}
