/**
 * Printing: readable blocks for people, JSON for scripts. Only results go to stdout; logs and
 * errors go to stderr, so `--json` output can be piped as it is.
 *
 * Nothing from the database reaches the terminal raw: every printed line has its control,
 * bidirectional and other invisible characters written as `\uXXXX` (names stored before the hub
 * refused them, or written straight into the database, could otherwise move the cursor, recolour
 * the terminal or reorder what follows), and JSON has them escaped as JSON escapes.
 */
import { ENTITY_ACCESS_LISTS } from '../kernel/identity/access-lists.ts';
import type { TenantRow } from '../kernel/identity/tables.ts';
import { escapeJsonText, escapeUnprintable } from '../kernel/text.ts';
import type { TokenRecord } from '../kernel/identity/tokens.ts';
import type { UserRecord } from '../kernel/identity/users.ts';
import type { RunResultUsage } from './hub-modules.ts';

/** What `user show` reports of a user's stored run results (see plugins/entities). */
type UsageFigures = Pick<RunResultUsage, 'count' | 'bytes' | 'limits'>;

/** Writes lines to stdout, unprintable characters escaped (a line never holds a line break). */
export function print(...lines: string[]): void {
  process.stdout.write(lines.map((line) => `${escapeUnprintable(line)}\n`).join(''));
}

/** Writes one JSON document to stdout. */
export function printJson(value: unknown): void {
  process.stdout.write(`${escapeJsonText(JSON.stringify(value, null, 2))}\n`);
}

/** Writes one JSON document on one line (for a stream of events, as `start --json` prints). */
export function printJsonLine(value: unknown): void {
  process.stdout.write(`${escapeJsonText(JSON.stringify(value))}\n`);
}

/** `label  value` lines with the values aligned, indented by two spaces. */
function block(entries: readonly (readonly [string, string])[]): string[] {
  const width = Math.max(...entries.map(([label]) => label.length)) + 2;
  return entries.map(([label, value]) => `  ${`${label}:`.padEnd(width)}${value}`);
}

const list = (ids: readonly string[]) => (ids.length === 0 ? '-' : ids.join(', '));

const UNITS = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];

/** A byte count for people: `512 bytes`, `1.5 MiB`, `256 MiB`. */
export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  const shown = unit === 0 || Number.isInteger(value) ? String(value) : value.toFixed(1);
  return `${shown} ${UNITS[unit]}`;
}

const ofLimit = (used: string, limit: string | null) =>
  limit === null ? `${used} (no limit)` : `${used} of ${limit}`;

/** The run-result lines of a user block. */
function usageEntries(usage: UsageFigures): [string, string][] {
  const { count, bytes } = usage.limits;
  return [
    ['run results', ofLimit(String(usage.count), count === null ? null : String(count))],
    [
      'run result bytes',
      ofLimit(formatBytes(usage.bytes), bytes === null ? null : formatBytes(bytes)),
    ],
  ];
}

/** A user as a block; `warnings` are stale access-list ids. */
export function userBlock(
  user: UserRecord,
  warnings: readonly string[] = [],
  usage?: UsageFigures,
): string[] {
  return [
    `${user.name} (${user.id})`,
    ...block([
      ['role', user.role],
      ...ENTITY_ACCESS_LISTS.map(({ heading, field }): [string, string] => [
        heading.toLowerCase(),
        user.role === 'admin' ? 'all (admin)' : list(user[field]),
      ]),
      ['llm access', user.llmAccess ? 'enabled' : 'disabled'],
      ['llm models', list(user.llmModels)],
      [
        'llm monthly tokens',
        user.llmMonthlyTokenLimit === null ? 'unlimited' : String(user.llmMonthlyTokenLimit),
      ],
      ['avatar', `${user.avatarInitials} ${user.avatarColor}`],
      ...(usage ? usageEntries(usage) : []),
      ['created', user.createdAt],
      ['updated', user.updatedAt],
    ]),
    ...warnings.map((warning) => `  warning: ${warning}`),
  ];
}

/** A time in a table: to the second, as `user list` shows it. */
const tableTime = (iso: string | null) => (iso === null ? '-' : iso.replace(/\.\d+Z$/, 'Z'));

/** Columns of `user token list`. */
export const TOKEN_COLUMNS = [
  'ID',
  'NAME',
  'USER',
  'PREFIX',
  'CREATED',
  'LAST USED',
  'REVOKED',
  'EXPIRES',
];

/** One row of the `user token list` table (never the secret); `owner` is the user's name. */
export function tokenRow(token: TokenRecord, owner: string | undefined): string[] {
  return [
    token.id,
    token.name,
    owner ?? token.userId ?? '-',
    token.tokenPrefix,
    tableTime(token.createdAt),
    tableTime(token.lastUsedAt),
    tableTime(token.revokedAt),
    token.expiresAt === null ? 'never' : tableTime(token.expiresAt),
  ];
}

/** Columns of `user invite list`. */
export const INVITATION_COLUMNS = ['ID', 'USER', 'PREFIX', 'STATUS', 'EXPIRES'];

/** One row of the `user invite list` table; `user` is the invited user's name. */
export function invitationRow(
  invitation: { id: string; userId: string; codePrefix: string; status: string; expiresAt: string },
  user: string | undefined,
): string[] {
  return [
    invitation.id,
    user ?? invitation.userId,
    invitation.codePrefix,
    invitation.status,
    tableTime(invitation.expiresAt),
  ];
}

/** Columns and one row of `tenant list`. */
export const TENANT_COLUMNS = ['ID', 'NAME', 'CREATED', 'UPDATED'];
export const tenantRow = (tenant: TenantRow) => [
  tenant.id,
  tenant.name,
  tableTime(tenant.createdAt),
  tableTime(tenant.updatedAt),
];

export function tenantBlock(tenant: TenantRow): string[] {
  return [
    `${tenant.name} (${tenant.id})`,
    ...block([
      ['created', tenant.createdAt],
      ['updated', tenant.updatedAt],
    ]),
  ];
}

/** Columns of `user list`. */
export const USER_COLUMNS = ['ID', 'NAME', 'ROLE', 'ACCESS', 'CREATED'] as const;

const accessPart = (label: string, ids: readonly string[]) =>
  ids.length === 0 ? [] : [`${label} ${ids.includes('*') ? '*' : ids.length}`];

/** What an account may use, on one line: `*` for all, else how many ids; `none` when nothing. */
export function accessSummary(user: UserRecord): string {
  const llm = user.llmAccess ? ['llm'] : [];
  if (user.role === 'admin') return ['all', ...llm].join(', ');
  const parts = [
    ...ENTITY_ACCESS_LISTS.flatMap(({ heading, field }) =>
      accessPart(heading.toLowerCase().replaceAll(' ', '-'), user[field]),
    ),
    ...llm,
  ];
  return parts.length === 0 ? 'none' : parts.join(', ');
}

/** A word as sh reads it: as it is when that is safe, else in single quotes. */
export function shellWord(word: string): string {
  return /^[\w.@%+=:,/-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * A warning for a new account that can use nothing (role user, every access list empty, no LLM):
 * what was made is legal, but rarely what the operator meant. Says how to grant access.
 */
export function noAccessWarning(user: UserRecord, tenantId: string): string | undefined {
  if (accessSummary(user) !== 'none') return undefined;
  const tenant = tenantId === '__default__' ? '' : ` --tenant ${shellWord(tenantId)}`;
  return (
    `warning: ${user.name} can use nothing yet: no access list was given. Grant access with, for example:\n` +
    `  workspace-hub user update ${shellWord(user.name)} --collection-access '*'${tenant}`
  );
}

/** Writes a warning (from {@link noAccessWarning}) to stderr, unprintable characters escaped. */
export function warn(message: string | undefined): void {
  if (message === undefined) return;
  process.stderr.write(`${message.split('\n').map(escapeUnprintable).join('\n')}\n`);
}

/** One row of the `user list` table. */
export function userRow(user: UserRecord): string[] {
  return [user.id, user.name, user.role, accessSummary(user), tableTime(user.createdAt)];
}

/** A table with a header row; columns are padded to their widest cell, the last one is not. */
export function printTable(header: readonly string[], cells: readonly (readonly string[])[]): void {
  // Escaped first, so the columns line up with what is printed.
  const rows = cells.map((row) => row.map(escapeUnprintable));
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column]!)))
      .join('  ');
  print(line(header), ...rows.map(line));
}

/**
 * Progress of a long operation (migrate, backup, export, import) for the person at a terminal: one
 * line on stderr, rewritten in place, and cleared when done. Silent when stderr is not a terminal
 * (piped, redirected, CI) and with `--json`, so scripts only ever see the result.
 */
export interface Progress {
  /** Whether anything is shown at all. */
  readonly visible: boolean;
  /** Reports the step now running, e.g. `progress.step('entities/0001-tables', 9)` (total when known). */
  step(label: string, total?: number): void;
  /** Clears the line; the command then prints its result as usual. */
  done(): void;
}

export function createProgress(
  title: string,
  options: { total?: number; json?: boolean | undefined; stream?: NodeJS.WriteStream } = {},
): Progress {
  const stream = options.stream ?? process.stderr;
  const visible = Boolean(stream.isTTY) && !options.json;
  let count = 0;
  let shown = false;
  return {
    visible,
    step(label, total = options.total) {
      count++;
      if (!visible) return;
      const position = total === undefined ? `${count}` : `${count}/${total}`;
      const width = (stream.columns || 80) - 1;
      stream.write(`\r\x1b[2K${`${title} ${position}: ${label}`.slice(0, width)}`);
      shown = true;
    },
    done() {
      if (visible && shown) stream.write('\r\x1b[2K');
      shown = false;
    },
  };
}

/** The one time a secret is shown: said plainly, with the secret alone on its line. */
export function secretLines(secret: string): string[] {
  return ['Store this token now; it will not be shown again:', secret];
}
