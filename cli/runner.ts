/**
 * Runs a citty command tree with the behaviour an admin tool needs and `runMain` lacks:
 *
 * - global options (`--config`, `--json`, `--help`, `--verbose`) anywhere, before or after the
 *   command words, as git, docker and kubectl accept them;
 * - errors as one message on stderr (stack only with `--verbose`), or `{"error": "..."}` with
 *   `--json`, and an exit code that tells scripts what kind of failure it was (see EXIT);
 * - unknown options refused rather than silently ignored (a typo in `--colection-access` must not
 *   "succeed");
 * - usage on stdout for `--help` and for a command group given no subcommand.
 */
import { runCommand, type ArgsDef, type CommandDef } from 'citty';
import { escapeJsonText, escapeUnprintable } from '../kernel/text.ts';
import { describeError, exitCodeOf, EXIT } from './errors.ts';
import { renderHelp } from './usage.ts';

type Command = CommandDef<any>;
type Resolvable<T> = T | Promise<T> | (() => T) | (() => Promise<T>);

const resolve = async <T>(value: Resolvable<T>): Promise<T> =>
  typeof value === 'function' ? (value as () => T | Promise<T>)() : value;
const kebab = (name: string) => name.replace(/[A-Z]/g, (ch) => `-${ch.toLowerCase()}`);
const camel = (name: string) => name.replace(/-([a-z])/g, (_m, ch: string) => ch.toUpperCase());
const isOption = (arg: string) => arg.startsWith('-') && arg !== '-';

/** Options every command understands, and whether each takes a value. */
const GLOBAL_OPTIONS = new Map<string, 'value' | 'flag'>([
  ['--config', 'value'],
  ['-c', 'value'],
  ['--json', 'flag'],
  ['--help', 'flag'],
  ['-h', 'flag'],
  ['--verbose', 'flag'],
]);

/** The global option `arg` names (`--config=x` included), or undefined. */
function globalOption(arg: string): 'value' | 'flag' | undefined {
  const flag = arg.includes('=') ? arg.slice(0, arg.indexOf('=')) : arg;
  const kind = GLOBAL_OPTIONS.get(flag);
  // `--json=...` or `--help=...` are not forms anyone means; leave them to the unknown-option check.
  if (kind === 'flag' && flag !== arg) return undefined;
  return kind;
}

interface Found {
  command: Command;
  /** The command words, e.g. ['user', 'list']. */
  path: string[];
  /** The leaf command's arguments, with any global options that came before the words moved in front. */
  rest: string[];
  /** A word that names no subcommand. */
  unknown?: string;
  /** An option before the command words that is not a global option. */
  misplaced?: string;
}

/** Walks the command words, setting aside the global options met on the way. */
async function findCommand(root: Command, rawArgs: readonly string[]): Promise<Found> {
  let command = root;
  const path: string[] = [];
  const moved: string[] = [];
  let i = 0;
  for (;;) {
    const subCommands = command.subCommands ? await resolve(command.subCommands) : undefined;
    if (!subCommands) break;
    const arg = rawArgs[i];
    if (arg === undefined || arg === '--') break;
    if (isOption(arg)) {
      const kind = globalOption(arg);
      // `--version` belongs to the root alone; anything else here is an option of a later command.
      if (!kind) {
        if (command === root && path.length === 0 && (arg === '--version' || arg === '-V')) break;
        return { command, path, rest: [...moved, ...rawArgs.slice(i)], misplaced: arg };
      }
      moved.push(arg);
      if (kind === 'value' && !arg.includes('=') && rawArgs[i + 1] !== undefined)
        moved.push(rawArgs[++i]!);
      i++;
      continue;
    }
    if (!(arg in subCommands))
      return { command, path, rest: [...moved, ...rawArgs.slice(i)], unknown: arg };
    command = await resolve(subCommands[arg]!);
    path.push(arg);
    i++;
  }
  return { command, path, rest: [...moved, ...rawArgs.slice(i)] };
}

/**
 * The first mistake among the options in `args`, as the message to print: an option the command
 * does not declare, a value option given no value (nothing follows it, or another option does),
 * or a required one given an empty value. Every such mistake is a usage error (exit code 2),
 * whichever option it is.
 */
function optionMistake(
  args: readonly string[],
  argsDef: ArgsDef,
  name: string,
): string | undefined {
  const known = new Map<string, { kind: 'value' | 'flag'; required: boolean }>([
    ['help', { kind: 'flag', required: false }],
    ['h', { kind: 'flag', required: false }],
  ]);
  for (const [option, def] of Object.entries(argsDef)) {
    if (def.type === 'positional') continue;
    const kind = def.type === 'boolean' ? 'flag' : 'value';
    const required = 'required' in def && def.required === true;
    const alias = 'alias' in def ? def.alias : undefined;
    const aliases = alias === undefined ? [] : Array.isArray(alias) ? alias : [alias];
    for (const alias of [option, kebab(option), camel(option), ...aliases]) {
      known.set(alias, { kind, required });
      if (kind === 'flag') known.set(`no-${alias}`, { kind, required });
    }
  }
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') return undefined;
    if (!isOption(arg)) continue;
    const [flag] = arg.split('=', 1) as [string];
    const option = known.get(flag.replace(/^--?/, ''));
    if (!option) return `Unknown option ${flag}. Run "${name} --help" for the options.`;
    if (option.kind === 'flag') continue;
    // The value of `--name value` is not an option, even when it starts with a single dash.
    const value = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : args[++i];
    if (value === undefined || (!arg.includes('=') && value.startsWith('--')))
      return `Option ${flag} needs a value. Run "${name} --help" for usage.`;
    if (option.required && value.trim() === '')
      return `Option ${flag} needs a value, not an empty one. Run "${name} --help" for usage.`;
  }
  return undefined;
}

/** Whether `flag` appears among the options (before any `--`). */
function hasFlag(rawArgs: readonly string[], ...flags: string[]): boolean {
  const end = rawArgs.indexOf('--');
  return (end === -1 ? rawArgs : rawArgs.slice(0, end)).some((arg) => flags.includes(arg));
}

/**
 * Runs `root` on `rawArgs`; sets `process.exitCode` on failure and never throws. With `--json`
 * anywhere among the options, a failure is `{"error": "..."}` on stderr.
 */
export async function runCli(root: Command, rawArgs: readonly string[]): Promise<void> {
  const verbose = hasFlag(rawArgs, '--verbose');
  const json = hasFlag(rawArgs, '--json');
  const fail = (message: string, code: number) => {
    // A message may quote a stored name: escaped like everything the CLI prints (cli/output.ts).
    process.stderr.write(
      json
        ? `${escapeJsonText(JSON.stringify({ error: message }))}\n`
        : `${message.split('\n').map(escapeUnprintable).join('\n')}\n`,
    );
    process.exitCode = code;
  };
  let name = 'workspace-hub';
  try {
    const { command, rest, unknown, misplaced } = await findCommand(root, rawArgs);
    name = (await resolve(command.meta ?? {})).name ?? name;
    if (hasFlag(rest, '--help', '-h')) return void process.stdout.write(await renderHelp(command));
    if (command === root && (rest[0] === '--version' || rest[0] === '-V')) {
      return void process.stdout.write(`${(await resolve(root.meta ?? {})).version}\n`);
    }
    if (unknown !== undefined)
      return fail(
        `Unknown command "${unknown}". Run "${name} --help" for the commands.`,
        EXIT.usage,
      );
    if (misplaced !== undefined)
      return fail(
        `Unknown option ${misplaced}. Run "${name} --help" for the commands and their options.`,
        EXIT.usage,
      );
    if (command.subCommands && !command.run) {
      // A group alone prints its usage; with --json a script gets an error instead of text.
      if (json) return fail(`Missing command: run "${name} --help" for the commands.`, EXIT.usage);
      return void process.stdout.write(await renderHelp(command));
    }
    const mistake = optionMistake(rest, await resolve(command.args ?? {}), name);
    if (mistake) return fail(mistake, EXIT.usage);
    await runCommand(command, { rawArgs: rest });
  } catch (error) {
    // citty's own argument errors (missing required option, bad enum value) are CLIErrors.
    if (error instanceof Error && error.name === 'CLIError') {
      return fail(
        json ? error.message : `${error.message}\nRun "${name} --help" for usage.`,
        EXIT.usage,
      );
    }
    fail(describeError(error, verbose), exitCodeOf(error));
  }
}
