/**
 * `--help` text, in the sections citty's own usage has (usage, arguments, options, commands) but
 * without its padding of every line to the longest description: each description starts in one
 * column and wraps within {@link HELP_WIDTH} columns, so help reads in an 80-to-100-column
 * terminal. Plain text: it is often piped into a pager or a file.
 */
import type { ArgsDef, CommandDef } from 'citty';

/** The widest line help prints. */
export const HELP_WIDTH = 100;
/** A left column wider than this puts its description on the next line. */
const MAX_LEFT = 32;

type Command = CommandDef<any>;
const resolve = async <T>(value: T | Promise<T> | (() => T | Promise<T>)): Promise<T> =>
  typeof value === 'function' ? (value as () => T | Promise<T>)() : value;

/** `text` broken at spaces into lines of at most `width` characters (a longer word stays whole). */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  return [...lines, line];
}

/** Rows of `[left, description]`, the descriptions in one column, wrapped. */
function columns(rows: readonly (readonly [string, string])[]): string[] {
  const left = Math.min(MAX_LEFT, Math.max(...rows.map(([name]) => name.length)));
  const indent = 2 + left + 3;
  const out: string[] = [];
  for (const [name, description] of rows) {
    const text = wrap(description, HELP_WIDTH - indent);
    if (name.length > left) out.push(`  ${name}`, ...text.map((line) => ' '.repeat(indent) + line));
    else
      out.push(
        `  ${name.padEnd(left)}   ${text[0]}`,
        ...text.slice(1).map((line) => ' '.repeat(indent) + line),
      );
  }
  return out.map((line) => line.trimEnd());
}

type Arg = ArgsDef[string];

function valueHint(name: string, arg: Arg): string {
  if (arg.type === 'boolean') return '';
  if (arg.type === 'enum' && 'options' in arg && arg.options?.length)
    return `=<${arg.options.join('|')}>`;
  const hint = 'valueHint' in arg && arg.valueHint ? arg.valueHint : undefined;
  if (arg.type === 'positional') return hint ? `=<${hint}>` : '';
  return `=<${hint ?? name}>`;
}

function describe(arg: Arg, required: boolean): string {
  const extra = [
    required ? '(Required)' : '',
    'default' in arg && arg.default !== undefined && arg.type !== 'boolean'
      ? `(Default: ${String(arg.default)})`
      : '',
  ];
  return [arg.description ?? '', ...extra].filter(Boolean).join(' ');
}

/** The help text of `command` (its meta name is the full command, e.g. `workspace-hub user list`). */
export async function renderHelp(command: Command): Promise<string> {
  const meta = await resolve(command.meta ?? {});
  const name = meta.name ?? 'workspace-hub';
  const args = Object.entries(await resolve(command.args ?? {})) as [string, Arg][];
  const positional: [string, string][] = [];
  const options: [string, string][] = [];
  const usage: string[] = [];
  for (const [argName, arg] of args) {
    if (arg.type === 'positional') {
      const required = arg.required !== false && arg.default === undefined;
      const upper = argName.toUpperCase();
      positional.push([upper + valueHint(argName, arg), describe(arg, required)]);
      usage.push(required ? `<${upper}>` : `[${upper}]`);
      continue;
    }
    const required = 'required' in arg && arg.required === true && arg.default === undefined;
    const alias = 'alias' in arg ? arg.alias : undefined;
    const aliases = alias === undefined ? [] : Array.isArray(alias) ? alias : [alias];
    const flags = [...aliases.map((a) => `-${a}`), `--${argName}`].join(', ');
    options.push([flags + valueHint(argName, arg), describe(arg, required)]);
    if (arg.type === 'boolean' && 'negativeDescription' in arg && arg.negativeDescription)
      options.push([`--no-${argName}`, arg.negativeDescription]);
    if (required) usage.push(`--${argName}${valueHint(argName, arg)}`);
  }
  const commands: [string, string][] = [];
  const subCommands = command.subCommands ? await resolve(command.subCommands) : undefined;
  for (const [sub, def] of Object.entries(subCommands ?? {})) {
    const subMeta = await resolve((await resolve(def)).meta ?? {});
    if (!subMeta.hidden) commands.push([sub, subMeta.description ?? '']);
  }
  if (commands.length > 0) usage.push(commands.map(([sub]) => sub).join('|'));

  const title = `${meta.description ?? ''} (${name}${meta.version ? ` v${meta.version}` : ''})`;
  const line = [name, args.length > 0 ? '[OPTIONS]' : '', ...usage].filter(Boolean).join(' ');
  const out = [...wrap(title, HELP_WIDTH), '', ...wrap(`USAGE ${line}`, HELP_WIDTH), ''];
  if (positional.length > 0) out.push('ARGUMENTS', '', ...columns(positional), '');
  if (options.length > 0) out.push('OPTIONS', '', ...columns(options), '');
  if (commands.length > 0)
    out.push(
      'COMMANDS',
      '',
      ...columns(commands),
      '',
      `Use ${name} <command> --help for more information about a command.`,
    );
  return `${out.join('\n').trimEnd()}\n`;
}
