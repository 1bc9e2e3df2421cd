/**
 * Runs a citty command tree with the behaviour an admin tool needs and `runMain` lacks: errors as
 * one message on stderr (stack only with `--verbose`), exit code 1, unknown options refused rather
 * than silently ignored (a typo in `--colection-access` must not "succeed"), usage on stdout for
 * `--help` and for a command group given no subcommand.
 */
import { renderUsage, runCommand, type ArgsDef, type CommandDef } from 'citty';
import { describeError } from './errors.ts';

type Command = CommandDef<any>;
type Resolvable<T> = T | Promise<T> | (() => T) | (() => Promise<T>);

const resolve = async <T>(value: Resolvable<T>): Promise<T> => (typeof value === 'function' ? (value as () => T | Promise<T>)() : value);
const kebab = (name: string) => name.replace(/[A-Z]/g, (ch) => `-${ch.toLowerCase()}`);
const camel = (name: string) => name.replace(/-([a-z])/g, (_m, ch: string) => ch.toUpperCase());
const isOption = (arg: string) => arg.startsWith('-') && arg !== '-';

/** The command `rawArgs` selects, the arguments left for it, and a word that named no subcommand. */
async function findCommand(root: Command, rawArgs: readonly string[]): Promise<{ command: Command; rest: string[]; unknown?: string }> {
  let command = root;
  let rest = [...rawArgs];
  for (;;) {
    const subCommands = command.subCommands ? await resolve(command.subCommands) : undefined;
    if (!subCommands) return { command, rest };
    const index = rest.findIndex((arg) => !isOption(arg));
    if (index === -1 || rest[index] === '--') return { command, rest };
    const name = rest[index]!;
    if (!(name in subCommands)) return { command, rest, unknown: name };
    command = await resolve(subCommands[name]!);
    rest = rest.slice(index + 1);
  }
}

/** The first option in `args` the command does not declare, or undefined. */
function findUnknownOption(args: readonly string[], argsDef: ArgsDef): string | undefined {
  const known = new Map<string, 'value' | 'flag'>([['help', 'flag'], ['h', 'flag']]);
  for (const [name, def] of Object.entries(argsDef)) {
    if (def.type === 'positional') continue;
    const kind = def.type === 'boolean' ? 'flag' : 'value';
    const alias = 'alias' in def ? def.alias : undefined;
    const aliases = alias === undefined ? [] : Array.isArray(alias) ? alias : [alias];
    for (const alias of [name, kebab(name), camel(name), ...aliases]) {
      known.set(alias, kind);
      if (kind === 'flag') known.set(`no-${alias}`, 'flag');
    }
  }
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') return undefined;
    if (!isOption(arg)) continue;
    const [flag] = arg.split('=', 1) as [string];
    const kind = known.get(flag.replace(/^--?/, ''));
    if (!kind) return flag;
    // The value of `--name value` is not an option, even when it starts with a dash.
    if (kind === 'value' && !arg.includes('=')) i++;
  }
  return undefined;
}

async function usage(command: Command): Promise<string> {
  return `${await renderUsage(command)}\n`;
}

/** Runs `root` on `rawArgs`; sets `process.exitCode` to 1 on failure and never throws. */
export async function runCli(root: Command, rawArgs: readonly string[]): Promise<void> {
  const verbose = rawArgs.includes('--verbose');
  const fail = (message: string) => {
    process.stderr.write(`${message}\n`);
    process.exitCode = 1;
  };
  try {
    const { command, rest, unknown } = await findCommand(root, rawArgs);
    const name = (await resolve(command.meta ?? {})).name ?? 'workspace-hub';
    const beforeDashes = rest.includes('--') ? rest.slice(0, rest.indexOf('--')) : rest;
    if (beforeDashes.includes('--help') || beforeDashes.includes('-h')) return void process.stdout.write(await usage(command));
    if (command === root && (rest[0] === '--version' || rest[0] === '-V')) {
      return void process.stdout.write(`${(await resolve(root.meta ?? {})).version}\n`);
    }
    if (unknown !== undefined) return fail(`Unknown command "${unknown}". Run "${name} --help" for the commands.`);
    if (command.subCommands && !command.run) return void process.stdout.write(await usage(command));
    const option = findUnknownOption(rest, await resolve(command.args ?? {}));
    if (option) return fail(`Unknown option ${option}. Run "${name} --help" for the options.`);
    await runCommand(root, { rawArgs: [...rawArgs] });
  } catch (error) {
    // citty's own argument errors (missing required option, bad enum value) are CLIErrors.
    if (error instanceof Error && error.name === 'CLIError') {
      const { command } = await findCommand(root, rawArgs);
      const name = (await resolve(command.meta ?? {})).name ?? 'workspace-hub';
      return fail(`${error.message}\nRun "${name} --help" for usage.`);
    }
    fail(describeError(error, verbose));
  }
}
