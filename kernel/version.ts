/** The running service's version, from package.json. */
import pkg from '../package.json' with { type: 'json' };

export const HUB_VERSION: string = pkg.version;
