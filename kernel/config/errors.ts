/** A configuration problem: stops start-up (or a reload) with a message naming the YAML key. */
export class ConfigError extends Error {
  /** Dot path of the offending key, e.g. `server.port`, when known. */
  readonly path: string | undefined;
  constructor(message: string, path?: string) {
    super(message);
    this.name = 'ConfigError';
    this.path = path;
  }
}
