/** The YAML parser, as a module of its own so commands can load it when they need it. */
export { parse } from 'yaml';
