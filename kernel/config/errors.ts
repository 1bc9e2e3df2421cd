/** A configuration problem: stops start-up (or a reload) with a message naming the YAML key. */
export class ConfigError extends Error {
  /** Dot path of the offending key, e.g. `server.port`, when known. */
  readonly path: string | undefined;
  /** Every problem found in the file (a file is checked whole, not up to its first mistake). */
  readonly problems: readonly { path: string; message: string }[];
  /**
   * The message without any line of the file (a YAML error's excerpt can show a secret its
   * masking missed): what readers other than the file's own get — a reload's HTTP answer and its
   * audit event.
   */
  readonly brief: string;
  constructor(
    message: string,
    path?: string,
    problems?: readonly { path: string; message: string }[],
    brief?: string,
  ) {
    super(message);
    this.name = 'ConfigError';
    this.path = path;
    this.problems = problems ?? (path ? [{ path, message }] : []);
    this.brief = brief ?? message;
  }
}
