/**
 * The account flags shared by `user create` and `user update`, and their translation into the
 * identity service's `UserInput`. Shape rules (wildcard alone, no access lists on admins, whole
 * numbers) are checked here, before the database is opened; existence of ids is the service's job.
 */
import type { ArgsDef } from 'citty';
import {
  ACCESS_LISTS,
  ENTITY_ACCESS_LISTS,
  type AccessField,
} from '../../kernel/identity/access-lists.ts';
import type { Role, UserInput } from '../../kernel/identity/users.ts';
import { collectFlag, parseCount, parseListFlag } from '../args.ts';
import { UsageError } from '../errors.ts';

const LIST_HELP = "'*' for all, or ids; repeat the flag or separate with commas; '' for none";

/** Flags for everything but `name` and `role`, which differ between create and update. */
export const userFieldArgs = {
  ...(Object.fromEntries(
    ENTITY_ACCESS_LISTS.map((list) => [
      list.flag,
      {
        type: 'string',
        valueHint: 'ids',
        description: `${list.heading} the user may use (${LIST_HELP})`,
      },
    ]),
  ) as Record<
    (typeof ENTITY_ACCESS_LISTS)[number]['flag'],
    { type: 'string'; valueHint: string; description: string }
  >),
  'llm-access': {
    type: 'boolean',
    description: 'Allow the LLM proxy',
    negativeDescription: 'Disallow the LLM proxy',
  },
  'llm-model': {
    type: 'string',
    valueHint: 'ids',
    description: `LLM models the user may call (${LIST_HELP})`,
  },
  'llm-monthly-tokens': {
    type: 'string',
    valueHint: 'n',
    description: 'Monthly LLM token cap, a whole number ≥ 0, or "unlimited"',
  },
  'avatar-initials': {
    type: 'string',
    valueHint: 'letters',
    description: 'One or two letters (default: from the name)',
  },
  'avatar-color': {
    type: 'string',
    valueHint: 'key',
    description: 'Palette colour such as sky-600 (default: from the name)',
  },
} satisfies ArgsDef;

/** Access-list flags and the fields they set; all but `--llm-model` are refused for admins. */
const LIST_FLAGS: readonly (readonly [string, AccessField])[] = ACCESS_LISTS.map((list) => [
  list.flag,
  list.field,
]);

/** The parsed flags `readUserInput` needs (citty's typed args fit). */
export interface UserFlagValues {
  name?: string | undefined;
  role?: Role | undefined;
  'llm-access'?: boolean | undefined;
  'llm-monthly-tokens'?: string | undefined;
  'avatar-initials'?: string | undefined;
  'avatar-color'?: string | undefined;
}

/** Builds the service input from the flags given; flags not given stay out, so update changes only those. */
export function readUserInput(rawArgs: readonly string[], args: UserFlagValues): UserInput {
  const input: UserInput = {};
  if (args.name !== undefined) input.name = args.name;
  if (args.role !== undefined) input.role = args.role;
  for (const [flag, field] of LIST_FLAGS) {
    const values = collectFlag(rawArgs, flag);
    if (values === undefined) continue;
    if (input.role === 'admin' && field !== 'llmModels') {
      throw new UsageError(
        `--${flag} cannot be used with --role admin: admins have full access to every collection, environment, snippet, live server and live page.`,
      );
    }
    input[field] = parseListFlag(flag, values);
  }
  if (args['llm-access'] !== undefined) input.llmAccess = args['llm-access'];
  if (args['llm-monthly-tokens'] !== undefined)
    input.llmMonthlyTokenLimit = parseCount('llm-monthly-tokens', args['llm-monthly-tokens'], {
      unlimited: true,
    });
  if (args['avatar-initials'] !== undefined) input.avatarInitials = args['avatar-initials'];
  if (args['avatar-color'] !== undefined) input.avatarColor = args['avatar-color'];
  return input;
}
